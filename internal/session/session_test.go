package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// A session measures a real simulated server: run.json records the command
// line the caller passed in (never the process's own), the recorder's
// captures land in servers/<target>/, the caller's hooks run, and Seal
// never overwrites a bundle.
func TestSessionRunAndSeal(t *testing.T) {
	dir, corpus, srv := demoSim(t, sim.Config{Persona: sim.PersonaVLLM, Seed: 1})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clips, err := bench.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"benchseal", "run", "--target", "a=" + hs.URL}
	out := filepath.Join(dir, "run")
	hooked := false
	s, err := session.Start(context.Background(), session.Config{
		Out: out, Servers: session.Servers{GPUs: map[string][]int{}},
		Plan: bench.Plan{Targets: []bench.Target{{Name: "a", URL: hs.URL}}, Corpus: clips, Levels: []int{1},
			Requests: []int{len(clips)}, Repeats: 1, Seed: 1, Command: argv,
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
		Hooks: []bench.Hooks{{BeforeSweep: func(context.Context, *bench.Dir) error { hooked = true; return nil }}},
	})
	defer s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Stop() // idempotent
	if !hooked {
		t.Error("the caller's BeforeSweep hook did not run")
	}
	var run schemas.Run
	b, err := os.ReadFile(filepath.Join(res.Dir, schemas.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(run.Command, argv) {
		t.Errorf("run.json command = %q, want the argv passed in %q", run.Command, argv)
	}
	for _, name := range []string{schemas.RecordsPath("a", 1, 1), schemas.ServerPath("a", schemas.ProbesBeforeFile), schemas.StepsFile} {
		if _, err := os.Stat(filepath.Join(res.Dir, filepath.FromSlash(name))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	signer, err := bundle.NewEphemeralSigner()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "e.tar.zst")
	if _, err := session.Seal(context.Background(), res.Dir, file, signer, bundle.SealOptions{}, false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(file)
	if _, err := session.Seal(context.Background(), res.Dir, file, signer, bundle.SealOptions{}, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Seal: err = %v, want fs.ErrExist", err)
	}
	if after, _ := os.ReadFile(file); !slices.Equal(before, after) {
		t.Fatal("the bundle was overwritten")
	}
}

// A launch that fails is a *StartError naming the target and its log.
func TestStartError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	s, err := session.Start(context.Background(), session.Config{Out: out,
		Plan:         bench.Plan{Targets: []bench.Target{{Name: "a", URL: "http://127.0.0.1:1"}}},
		Servers:      session.Servers{Launch: map[string]string{"a": "exit 3"}},
		ReadyTimeout: bench.DefaultTimeout, StopGrace: session.DefaultStopGrace})
	defer s.Stop()
	var se *session.StartError
	if !errors.As(err, &se) || se.Target != "a" || se.Log != session.PendingLog(out, "a") {
		t.Fatalf("err = %v, want a *StartError for a with its pending log", err)
	}
}

// cache_hits counts the measured requests only: a server that answers every
// unperturbed request from its cache counts a hit for each warm-up too, yet
// claims.json's cache_hits equals the measured requests, taken from the
// /metrics scrape after the warm-ups (servers/<t>/metrics/c<C>-r<R>-measure.prom,
// cache_measure in telemetry/steps.jsonl).
func TestCacheHitsMeasuredPhaseOnly(t *testing.T) {
	dir, corpus, srv := demoSim(t, sim.Config{Persona: sim.PersonaVLLM, Seed: 1, Cache: true})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	clips, err := bench.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	const measured, warmups = 6, 2
	s, err := session.Start(context.Background(), session.Config{
		Out: filepath.Join(dir, "run"), Servers: session.Servers{GPUs: map[string][]int{}},
		Plan: bench.Plan{Targets: []bench.Target{{Name: "a", URL: hs.URL}}, Corpus: clips, Levels: []int{1, 2},
			Requests: []int{measured}, Warmup: []int{warmups}, Repeats: 2, NoPerturb: true,
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
	})
	defer s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Claims.Targets[0].Levels {
		for r, m := range l.Repeats {
			if l.Concurrency == 1 && r == 0 {
				continue // the first step sends clips the cache has not seen yet
			}
			// Every later request, warm-ups included, hits.
			if m.CacheHits == nil || *m.CacheHits != measured || m.CacheHitsScope != schemas.CacheHitsMeasured {
				t.Errorf("c=%d repeat %d: cache_hits %v (scope %q), want the %d measured requests (scope %q)",
					l.Concurrency, r+1, m.CacheHits, m.CacheHitsScope, measured, schemas.CacheHitsMeasured)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(res.Dir, filepath.FromSlash(schemas.StepsFile)))
	if err != nil {
		t.Fatal(err)
	}
	var st schemas.StepTelemetry
	if err := json.Unmarshal(b[:slices.Index(b, '\n')], &st); err != nil {
		t.Fatal(err)
	}
	// The step's before/after span includes the warm-ups' hits (the
	// verifier's request-counter cross-check keeps using that span).
	hit := "vllm:mm_cache_hits_total"
	first := res.Claims.Targets[0].Levels[0].Repeats[0]
	if st.CacheMeasure == nil || first.CacheHits == nil || st.CacheAfter[hit]-st.CacheMeasure[hit] != *first.CacheHits ||
		st.CacheMeasure[hit] < st.CacheBefore[hit] {
		t.Errorf("first step's counters: before %v measure %v after %v, cache_hits %v", st.CacheBefore, st.CacheMeasure, st.CacheAfter, first.CacheHits)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, filepath.FromSlash(schemas.MetricsPath("a", 1, 1, "measure")))); err != nil {
		t.Error(err)
	}
}

// demoSim writes the embedded demo corpus into a fresh temporary folder
// and makes a simulated server over it (cfg without its Corpus).
func demoSim(t *testing.T, cfg sim.Config) (dir, corpus string, srv *sim.Server) {
	t.Helper()
	dir = t.TempDir()
	corpus = filepath.Join(dir, "corpus")
	if err := demo.WriteCorpus(corpus); err != nil {
		t.Fatal(err)
	}
	clips, err := sim.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Corpus = clips
	if srv, err = sim.New(cfg); err != nil {
		t.Fatal(err)
	}
	return dir, corpus, srv
}
