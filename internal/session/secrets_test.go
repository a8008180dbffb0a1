package session_test

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// The secret values a session holds never reach the run directory, even
// where no pattern names them: an ordinary launch-log line, a config file
// line, a form field that is not secret by name, a probe answer and a
// /metrics scrape that echo the key, and the command line. A key shorter
// than MinSecretLen is warned about instead of scrubbed from innocent text.
func TestSessionScrubsHeldSecrets(t *testing.T) {
	const key = "SECRETKEY123xyz"
	dir, corpus, srv := demoSim(t, sim.Config{Persona: sim.PersonaVLLM, Seed: 1})
	// A server that quotes the key it was sent, where no pattern sees it.
	var echoed atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/version":
			w.Write([]byte(`{"version":"1", "note":"client sent ` + key + `"}`))
		case "/v1/audio/transcriptions":
			// Every other answer an error that quotes the key, the rest
			// a transcript that does.
			if echoed.Add(1)%2 == 0 {
				http.Error(w, `{"error": "bad client `+key+`"}`, http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"text": "the cat ` + key + ` sat"}`))
		case "/metrics":
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			w.Write(rec.Body.Bytes())
			w.Write([]byte("# note last client " + key + "\n"))
		default:
			srv.ServeHTTP(w, r)
		}
	}))
	defer hs.Close()
	clips, err := bench.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(dir, "v.log")
	conf := filepath.Join(dir, "v.yaml")
	os.WriteFile(logf, []byte("INFO: Uvicorn running\nWARNING: request from client with header x-api-key "+key+" rejected\nINFO key is "+key+"\n"), 0o644)
	os.WriteFile(conf, []byte("model: x\nextra: "+key+"\n"), 0o644)
	argv := []string{"benchseal", "run", "--form", "prompt=" + key}
	var warned bytes.Buffer
	s, err := session.Start(context.Background(), session.Config{
		Out: filepath.Join(dir, "run"), APIKey: key,
		Servers: session.Servers{GPUs: map[string][]int{}, LaunchLog: map[string]string{"a": logf},
			Configs: map[string][]string{"a": {conf}}, LaunchCmd: map[string]string{"a": "vllm serve m --api-key " + key}},
		Plan: bench.Plan{Targets: []bench.Target{{Name: "a", URL: hs.URL, Fields: map[string]string{"prompt": key}}},
			Corpus: clips, Levels: []int{1}, Requests: []int{len(clips)}, Repeats: 1, Seed: 1, Command: argv,
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
		Warnf: func(f string, a ...any) { warned.WriteString(f) },
	})
	defer s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if argv[3] != "prompt="+key {
		t.Error("Start changed the caller's command line slice")
	}
	found := map[string]bool{}
	filepath.WalkDir(res.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(res.Dir, p)
		found[filepath.ToSlash(rel)] = true
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", rel)
		}
		return nil
	})
	recs, err := os.ReadFile(filepath.Join(res.Dir, filepath.FromSlash(schemas.RecordsPath("a", 1, 1))))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(recs, []byte(`"error":"HTTP 500`)) || !bytes.Contains(recs, []byte(`"text":"the cat [REDACTED] sat"`)) {
		t.Errorf("the records hold no scrubbed error and transcript: the test checked nothing there:\n%s", recs)
	}
	for _, want := range []string{"servers/a/launch.log", "servers/a/config/v.yaml", "servers/a/probes-before.json", "run.json", "env/client.json"} {
		if !found[want] {
			t.Errorf("%s was not written: the test checked nothing there", want)
		}
	}
	if warned.Len() > 0 {
		t.Errorf("a key of %d characters was warned about: %s", len(key), warned.String())
	}

	// A short key: warned about, never named.
	warned.Reset()
	s2, _ := session.Start(context.Background(), session.Config{Out: filepath.Join(dir, "run2"), APIKey: "abc1",
		Warnf: func(f string, a ...any) { warned.WriteString(f) }})
	s2.Stop()
	if !strings.Contains(warned.String(), "shorter than") || strings.Contains(warned.String(), "abc1") {
		t.Errorf("short key warning = %q, want one that does not name the key", warned.String())
	}
}
