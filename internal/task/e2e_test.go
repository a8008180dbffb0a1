package task_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// echo is a second task, made up for the test: the input is sent as the
// raw body of POST /v1/echo, the answer is plain text, a request
// succeeds when the text is "ok", RTFx counts half the clip's seconds,
// and the quality metric is the share of answers not equal to the
// reference. Every method differs from ASR's where the runner, claims or
// verify would notice ASR being used instead.
type echo struct{ asrInput task.Task }

func (echo) Name() string                                { return "echo-test" }
func (echo) Path() string                                { return "/v1/echo" }
func (echo) IsStream(ct string) bool                     { return ct == "application/octet-stream" }
func (echo) RecordSeconds(in float64, _ string) float64  { return in }
func (echo) LoadCorpus(path string) ([]task.Clip, error) { return task.LoadWAVCorpus(path) }
func (echo) Envelope(task.Target) (task.Envelopes, error) {
	return task.Shared{ContentType: "application/octet-stream"}, nil
}
func (echo) Decode(fields map[string]string, contentType string, body []byte) (string, string, error) {
	return string(body), "", nil
}
func (echo) DecodeStream(br *bufio.Reader, onText func()) (string, string, error) {
	b, err := io.ReadAll(br)
	return string(b), "", err
}
func (echo) Metric(schemas.Scoring) string { return "mismatch" }
func (echo) SuccessRule() string           { return "http_200_text_ok" }
func (echo) Score(text string) (string, string, string) {
	if text != "ok" {
		return text, schemas.ErrEmptyText, "not ok"
	}
	return text, "", ""
}
func (echo) Seconds(frames int64, rate int) float64 { return float64(frames) / float64(rate) / 2 }
func (e echo) Input(name string, b []byte) (task.Input, error) {
	return e.asrInput.Input(name, b) // the corpus is WAV clips (see the note on Input)
}
func (e echo) Positions(c schemas.Clip) int64 { return e.asrInput.Positions(c) }
func (echo) Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	var n, bad float64
	for _, r := range measured {
		if ref, ok := refs[r.Clip]; ok {
			n++
			if r.Scored != ref {
				bad++
			}
		}
	}
	if n == 0 {
		return nil, nil
	}
	q := bad / n
	return &q, nil
}

// TestSecondTaskEndToEnd runs a task that is not ASR through the runner
// against a loopback server, and verifies the run directory: the server
// sees the task's path and the variant's bytes, run.json names the task,
// claims carry its quality metric and its seconds, and verify's checks 5
// (variants, seconds) and 6 (claims recomputed) hold only because verify
// picked the task from run.json.
func TestSecondTaskEndToEnd(t *testing.T) {
	e := echo{task.ASR}
	if _, err := task.Lookup(e.Name()); err != nil { // -count=N runs it again
		task.Register(e)
	}
	var mu sync.Mutex
	seen := map[string]bool{} // sha256 of each body the server received
	paths := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" { // the runner's preflight (the engine's, not the task's)
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		s := sha256.Sum256(b)
		mu.Lock()
		seen[hex.EncodeToString(s[:])] = true
		paths[r.URL.Path]++
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer ts.Close()

	wavBytes := testkit.NoiseWAV(0.5, 3)
	w, err := perturb.Parse("c1.wav", wavBytes)
	if err != nil {
		t.Fatal(err)
	}
	clip := bench.Clip{ID: "c1", Source: "c1.wav", Text: "ok", WAV: w, SHA256: sha256.Sum256(wavBytes)}
	dir := filepath.Join(t.TempDir(), "run")
	plan := bench.Plan{Task: e, Targets: []bench.Target{{Name: "a", URL: ts.URL, Model: "m"}},
		Corpus: []bench.Clip{clip}, Levels: []int{1}, Requests: []int{4}, Seed: 9,
		Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}}
	if _, err := bench.Run(context.Background(), dir, plan); err != nil {
		t.Fatal(err)
	}
	if paths["/v1/echo"] == 0 || len(paths) != 1 {
		t.Fatalf("server saw paths %v, want only /v1/echo", paths)
	}

	var run schemas.Run
	readJSON(t, filepath.Join(dir, schemas.RunFile), &run)
	if run.Protocol.Task != "echo-test" {
		t.Fatalf("run.json protocol.task = %q", run.Protocol.Task)
	}
	var cl schemas.Claims
	readJSON(t, filepath.Join(dir, schemas.ClaimsFile), &cl)
	m := cl.Targets[0].Levels[0].Median
	if m.Succeeded == 0 || m.Quality == nil || *m.Quality != 0 {
		t.Fatalf("claims: succeeded %d, quality %v; want the echo metric 0", m.Succeeded, m.Quality)
	}
	// Every body the server got is a recorded variant, whose sha256 the
	// input derived (not the clip itself).
	recs, err := os.ReadFile(filepath.Join(dir, schemas.RecordsPath("a", 1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(recs)), "\n") {
		var r schemas.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if want := e.Seconds(w.Frames(), int(w.Format.SampleRate)); r.Seconds != want {
			t.Errorf("audio_seconds %v, want the task's %v", r.Seconds, want)
		}
		if r.InputSHA256 == run.Corpus[0].SHA256 || !seen[r.InputSHA256] {
			t.Errorf("record %d: input_sha256 %s is the clip's, or no body the server got", r.Seq, r.InputSHA256)
		}
	}

	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{verify.CheckVariants, verify.CheckClaims} {
		if c := rep.Check(id); c.Status != verify.Pass {
			t.Errorf("check %d %s: %s %s %v", id, c.Name, c.Status, c.Summary, c.Findings)
		}
	}

	// Sealed, the bundle verifies as a whole and its report names the
	// task's metric: seal, verify and report ask the task as run.json
	// names it, with nothing of the echo task outside this file.
	signer, err := bundle.NewEphemeralSigner()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "echo.tar.zst")
	if _, err := session.Seal(context.Background(), dir, file, signer, bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: "v0.0.0-test"}}, false); err != nil {
		t.Fatalf("seal: %v", err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = verify.Bundle(context.Background(), f, verify.Options{})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Status == verify.Fail {
			t.Errorf("sealed echo run: check %d %s FAILs: %s %v", c.ID, c.Name, c.Summary, c.Findings)
		}
	}
	src, err := verify.Open(context.Background(), file, verify.OpenOptions{Keep: report.Keeps, Optional: schemas.IsProbesBefore, Unsigned: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := report.FromDocs(src.Docs, func(name string, err error) { t.Errorf("report skipped %s: %v", name, err) })
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := report.Markdown(&md, in); err != nil {
		t.Fatal(err)
	}
	if r := md.String(); !strings.Contains(r, "## Accuracy (mismatch)") || !strings.Contains(r, "success is the echo-test task's rule `http_200_text_ok`") || strings.Contains(r, "WER") {
		t.Errorf("the echo run's report does not name its metric (mismatch) and its success rule, or names WER:\n%s", r)
	}

	// The same run with its task name changed to one nobody registered
	// is refused, not verified as ASR.
	run.Protocol.Task = "no-such-task"
	b, _ := json.Marshal(run)
	if err := os.WriteFile(filepath.Join(dir, schemas.RunFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = verify.Dir(context.Background(), dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{verify.CheckVariants, verify.CheckClaims} {
		if c := rep.Check(id); c.Status != verify.Fail || !strings.Contains(c.Findings[0].Reason, "no-such-task") {
			t.Errorf("unknown task: check %d %s: %s %v, want a failure naming it", id, c.Name, c.Status, c.Findings)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
