package session_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// A step measured again with SGLang-Omni's request profiler on: each
// attempt is its own profiling session (run_id ending -a<k> past the
// first), the discarded attempt's events stay out of the step's, and
// verify's check 10 holds the kept attempt's records to its events
// without a FAIL. Worker 0 of c=3 is held back 600 ms in attempt 1 only.
func TestRemeasureWithProfiler(t *testing.T) {
	prof := t.TempDir()
	dir, corpus, srv := demoSim(t, sim.Config{Persona: sim.PersonaSGLangOmni, Seed: 1, BaseLatency: 60 * time.Millisecond, ProfilerDir: prof})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clips, err := bench.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	hold := bench.WithStallHook(func(s bench.Step, phase string, worker, n int) time.Duration {
		if s.Concurrency == 3 && s.Attempt == 1 && phase == schemas.PhaseMeasure && worker == 0 && n == 1 {
			return 600 * time.Millisecond
		}
		return 0
	})
	s, err := session.Start(context.Background(), session.Config{
		Out: filepath.Join(dir, "run"), Servers: session.Servers{GPUs: map[string][]int{}},
		Plan: bench.Plan{Targets: []bench.Target{{Name: "s", URL: hs.URL}}, Corpus: clips, Levels: []int{3},
			Requests: []int{6}, Repeats: 1, Seed: 1, Stream: true, Command: []string{"benchseal", "run"},
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: 50 * time.Millisecond,
		Events:  session.ServerEvents{ProfilerDirs: map[string]string{"s": prof}},
		Options: []bench.Option{hold},
	})
	defer s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Discarded) == 0 {
		t.Fatal("the held-back step was not measured again")
	}
	if _, err := os.Stat(filepath.Join(res.Dir, filepath.FromSlash(schemas.AttemptRecordsPath("s", 3, 1, 1)))); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Dir(context.Background(), res.Dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check(verify.CheckEvents)
	if c.Status != verify.Pass {
		var why []string
		for _, f := range c.Findings {
			why = append(why, f.Path+": "+f.Reason)
		}
		t.Errorf("check 10 %s: %s\n%s", c.Status, c.Summary, strings.Join(why, "\n"))
	}
	for _, f := range rep.Check(verify.CheckProtocol).Findings {
		if f.Status == verify.Fail && !strings.Contains(f.Reason, "stalls add up to") {
			t.Errorf("check 7 FAILs %s: %s", f.Path, f.Reason)
		}
	}
}
