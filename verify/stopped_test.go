package verify_test

// A run in which one target's server went away: what verify says of the
// target that ran to the end.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// makeStoppedRun runs targets a and d on the simulator; d's server dies
// at its dieAt-th request (its connections cut, as kill -9 does) and the
// runner is told so, as --launch tells it. With dieAt 0 it never dies.
func makeStoppedRun(tb testing.TB, base string, corpus map[string][]byte, dieAt int) string {
	tb.Helper()
	corpusDir, dir := filepath.Join(base, "corpus"), filepath.Join(base, "run")
	must(tb, os.MkdirAll(corpusDir, 0o755))
	var sc []sim.Clip
	for name, w := range corpus {
		must(tb, os.WriteFile(filepath.Join(corpusDir, name+".wav"), w, 0o644))
		must(tb, os.WriteFile(filepath.Join(corpusDir, name+".txt"), []byte("hello world\n"), 0o644))
		sc = append(sc, sim.Clip{Audio: w, Text: "hello world"})
	}
	clips, err := bench.LoadCorpus(corpusDir)
	must(tb, err)
	s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: time.Millisecond})
	must(tb, err)
	a := httptest.NewServer(s)
	tb.Cleanup(a.Close)
	gone := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	served := 0
	var d *httptest.Server
	d = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/audio/transcriptions" {
			mu.Lock()
			served++
			n := served
			mu.Unlock()
			if dieAt > 0 && n >= dieAt {
				once.Do(func() { close(gone); go d.CloseClientConnections() })
				panic(http.ErrAbortHandler)
			}
		}
		s.ServeHTTP(w, r)
	}))
	tb.Cleanup(d.Close)
	plan := bench.Plan{
		Targets: []bench.Target{{Name: "vllm", URL: a.URL}, {Name: "d", URL: d.URL}},
		Corpus:  clips, Levels: []int{1, 2}, Requests: []int{6, 4}, Repeats: 2, Seed: 7,
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
	}
	_, err = bench.Run(context.Background(), dir, plan, bench.WithTool(testTool()),
		bench.WithTargetStop("d", gone, func() string { return "signal: killed" }))
	if dieAt == 0 {
		must(tb, err)
		return dir
	}
	var se *bench.TargetStoppedError
	if !errors.As(err, &se) {
		tb.Fatalf("run: %v, want d stopped", err)
	}
	return dir
}

// A target stopped in its second step: the other target's variants keep
// the numbers the protocol gives them, and check 5 finds nothing, though
// the run is incomplete.
func TestStoppedTargetVariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		corpus map[string][]byte
	}{
		{"distinct clips", map[string][]byte{"a": makeWAV(0.25, 1), "b": makeWAV(0.25, 2)}},
		// Two ids, one SHA-256: the runner numbers the bytes, not the id.
		{"clips with the same bytes", map[string][]byte{"a": makeWAV(0.25, 1), "b": makeWAV(0.25, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := makeStoppedRun(t, t.TempDir(), tc.corpus, 10)
			rep := verifyDir(t, dir)
			c, text := checkOf(rep, 5)
			if c.Status != verify.Pass || len(c.Findings) != 0 || c.Omitted != 0 {
				t.Errorf("check 5 is %s with %d findings (+%d omitted), want PASS with none:\n%s", c.Status, len(c.Findings), c.Omitted, text)
			}
			c7, text := checkOf(rep, 7)
			if c7.Status != verify.Warn {
				t.Errorf("check 7 is %s, want WARN (the run did not complete):\n%s", c7.Status, text)
			}
			// A run directory was never sealed: the warning does not say
			// it was; a bundle sealed with --allow-incomplete does.
			if !strings.Contains(text, "THE RUN DID NOT COMPLETE") || strings.Contains(text, "sealed anyway") {
				t.Errorf("check 7 of an unsealed run directory:\n%s", text)
			}
			signer := testSigner(t)
			b := seal(t, dir, signer, bundle.SealOptions{AllowIncomplete: true})
			brep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{PublicKey: signer.PublicKey()})
			must(t, err)
			if _, text := checkOf(brep, 7); !strings.Contains(text, "it was sealed anyway, on request") {
				t.Errorf("check 7 of a bundle sealed with --allow-incomplete:\n%s", text)
			}
		})
	}
}

// More schedule findings than a check keeps are counted, not dropped:
// Omitted says how many more there are.
func TestScheduleFindingsOmitted(t *testing.T) {
	t.Parallel()
	dir := makeStoppedRun(t, t.TempDir(), map[string][]byte{"a": makeWAV(0.25, 1), "b": makeWAV(0.25, 2)}, 0)
	files, err := filepath.Glob(filepath.Join(dir, "records", "*", "c*.jsonl"))
	must(t, err)
	total := 0
	for _, f := range files {
		f, err := filepath.Rel(dir, f)
		must(t, err)
		editRecords(t, dir, f, func(recs []schemas.Record) []schemas.Record {
			for i := range recs {
				reVariant(t, dir, &recs[i], recs[i].Variant+1000)
			}
			total += len(recs)
			return recs
		})
	}
	refresh(t, dir)
	c, text := checkOf(verifyDir(t, dir), 5)
	if c.Status != verify.Fail || len(c.Findings) != verify.MaxFindings || c.Omitted != total-verify.MaxFindings {
		t.Errorf("check 5 is %s with %d findings and %d omitted, want FAIL with %d and %d omitted (%d renumbered):\n%s",
			c.Status, len(c.Findings), c.Omitted, verify.MaxFindings, total-verify.MaxFindings, total, text)
	}
}
