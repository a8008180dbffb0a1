package verify_test

// The active cache probe as verify sees it: a real run (the runner, the
// fingerprint recorder with its probe hooks, two simulated servers) with a
// probe, then one fact changed the way a key holder would change it
// (claims.json recomputed to agree), and the verdict each check must give.

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// probePairs is the probe of these tests: short, but two successes a half.
const probePairs = 8

type probeSpec struct {
	cache, noPerturb bool
	pairs            int // 0: no probe asked for
	personaB         string
}

// makeProbeRun writes a run of targets a (the vLLM persona, which counts
// its multimodal cache) and b (personaB, vLLM when "") into base/run.
func makeProbeRun(tb testing.TB, base string, spec probeSpec) string {
	tb.Helper()
	corpusDir, dir := filepath.Join(base, "corpus"), filepath.Join(base, "run")
	must(tb, os.MkdirAll(corpusDir, 0o755))
	w := testkit.NoiseWAV(0.5, 3)
	must(tb, os.WriteFile(filepath.Join(corpusDir, "a.wav"), w, 0o644))
	must(tb, os.WriteFile(filepath.Join(corpusDir, "a.txt"), []byte("the quick brown fox\n"), 0o644))
	clips, err := bench.LoadCorpus(corpusDir)
	must(tb, err)
	urls := map[string]string{}
	for name, persona := range map[string]string{"a": "vllm", "b": spec.personaB} {
		s, err := sim.New(sim.Config{Persona: persona, Corpus: []sim.Clip{{Audio: w, Text: "the quick brown fox"}},
			BaseLatency: 20 * time.Millisecond, Cache: spec.cache})
		must(tb, err)
		ts := httptest.NewServer(s)
		tb.Cleanup(ts.Close)
		urls[name] = ts.URL
	}
	rec := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: 20 * time.Millisecond,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: urls["a"]}, "b": {URL: urls["b"]}}})
	hooks := bench.Hooks{
		BeforeSweep: func(ctx context.Context, d *bench.Dir) error { return rec.BeforeSweep(ctx, d.Path, d.Anchor) },
		BeforeStep: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
			return rec.StepStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		BeforeMeasure: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
			return rec.MeasureStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			_, err := rec.StepEnd(ctx, r.Target, r.Concurrency, r.Repeat, r.StartNs, r.EndNs)
			return err
		},
		BeforeProbe: func(ctx context.Context, d *bench.Dir, t string) error { return rec.ProbeStart(ctx, t) },
		AfterProbe:  func(ctx context.Context, d *bench.Dir, t string) error { return rec.ProbeEnd(ctx, t) },
		AfterSweep:  func(ctx context.Context, d *bench.Dir) error { return rec.AfterSweep(ctx) },
	}
	plan := bench.Plan{
		Targets: []bench.Target{{Name: "a", URL: urls["a"]}, {Name: "b", URL: urls["b"]}},
		Corpus:  clips, Levels: []int{1}, Requests: []int{2}, Repeats: 1, Seed: 7, NoPerturb: spec.noPerturb, CacheProbe: spec.pairs,
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
	}
	_, err = bench.Run(context.Background(), dir, plan, bench.WithHooks(hooks), bench.WithTool(testTool()))
	must(tb, err)
	return dir
}

func verifyDir(tb testing.TB, dir string) *verify.Report {
	tb.Helper()
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	must(tb, err)
	return rep
}

// checkOf returns check id of rep and all its text (summary and findings).
func checkOf(rep *verify.Report, id int) (verify.Check, string) {
	for _, c := range rep.Checks {
		if c.ID == id {
			text := c.Summary
			for _, f := range c.Findings {
				text += "\n" + f.Status.String() + " " + f.Path + ": " + f.Reason
			}
			return c, text
		}
	}
	return verify.Check{}, ""
}

func TestCacheProbe(t *testing.T) {
	t.Parallel()
	base := makeProbeRun(t, t.TempDir(), probeSpec{cache: true, pairs: probePairs})
	for _, tc := range []struct {
		name   string
		edit   func(dir string)
		check  int
		status verify.Status
		any    bool // any status
		want   []string
	}{
		{name: "held", check: 7, status: verify.Pass, want: []string{"2 cache probe(s) one request at a time after the sweep"}},
		{name: "fairness says perturbation makes it irrelevant", check: 8, any: true,
			want: []string{"cache probe: a caches identical audio", "perturbation makes a cache of identical audio irrelevant"}},
		{name: "counter growth recomputed", check: 6, status: verify.Pass, want: []string{"recomputed from"}},
		{name: "probe deleted", check: 7, status: verify.Fail, edit: func(dir string) {
			must(t, os.Remove(filepath.Join(dir, "records", "a", "probe-1.jsonl")))
			refresh(t, dir)
		}, want: []string{"missing: run.json asks for a cache probe of 8 pairs", "removed after the run"}},
		{name: "probe cut short", check: 7, status: verify.Fail, edit: func(dir string) {
			editRecords(t, dir, "records/b/probe-1.jsonl", func(r []schemas.Record) []schemas.Record { return r[:5] })
			refresh(t, dir)
		}, want: []string{"5 records, but a probe of 8 pairs sends 18"}},
		{name: "probe deleted, run incomplete", check: 7, status: verify.Warn, edit: func(dir string) {
			must(t, os.Remove(filepath.Join(dir, "records", "a", "probe-1.jsonl")))
			editRun(t, dir, func(r *schemas.Run) { r.Complete, r.Incomplete = false, "interrupted" })
			refresh(t, dir)
		}, want: []string{"the target may have stopped before its probe"}},
		{name: "repeat and variant swapped", check: 7, status: verify.Fail, edit: func(dir string) {
			editRecords(t, dir, "records/a/probe-1.jsonl", func(r []schemas.Record) []schemas.Record {
				r[2].Seq, r[3].Seq = 3, 2
				r[2], r[3] = r[3], r[2]
				r[2].StartNs, r[3].StartNs, r[2].EndNs, r[3].EndNs = r[3].StartNs, r[2].StartNs, r[3].EndNs, r[2].EndNs
				return r
			})
			refresh(t, dir)
		}, want: []string{"repeats and variants were swapped or moved"}},
		{name: "probe counters edited", check: 6, status: verify.Fail, edit: func(dir string) {
			editLines(t, filepath.Join(dir, filepath.FromSlash(schemas.CacheProbesFile)), func(i int, line []byte) []byte {
				return regexp.MustCompile(`("cache_after":\{"vllm:mm_cache_hits_total":)\d+`).ReplaceAll(line, []byte("${1}0"))
			})
			refresh(t, dir)
		}, want: []string{"a's cache probe: cache_after is {vllm:mm_cache_hits_total=0"}},
		{name: "probe scrape removed", check: 6, status: verify.Fail, edit: func(dir string) {
			must(t, os.Remove(filepath.Join(dir, filepath.FromSlash(schemas.ProbeMetricsPath("a", 1, "after")))))
		}, want: []string{"there is no servers/a/metrics/probe-1-after.prom they were read from"}},
		{name: "counter disagrees with latencies", check: 8, status: verify.Warn, edit: func(dir string) {
			// The server and its scrape say no hit while the latencies
			// say caching: edited consistently, only the disagreement
			// shows.
			for _, f := range []string{schemas.CacheProbesFile, schemas.ProbeMetricsPath("a", 1, "after")} {
				p := filepath.Join(dir, filepath.FromSlash(f))
				b, err := os.ReadFile(p)
				must(t, err)
				b = regexp.MustCompile(`("?vllm:mm_cache_hits_total(?:\{[^}]*\})?"?[: ])\d+`).ReplaceAll(b, []byte("${1}0"))
				must(t, os.WriteFile(p, b, 0o644))
			}
			refresh(t, dir)
		}, want: []string{"the cache probe's latencies and the server's own counter disagree: vllm:mm_cache_hits_total grew by 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, base, dir)
			if tc.edit != nil {
				tc.edit(dir)
			}
			c, text := checkOf(verifyDir(t, dir), tc.check)
			// PASS accepts the run's own WARNs on a loaded host (passes).
			if !tc.any && c.Status != tc.status && (tc.status != verify.Pass || !passes(c)) {
				t.Errorf("check %d is %s, want %s:\n%s", tc.check, c.Status, tc.status, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("check %d lacks %q:\n%s", tc.check, w, text)
				}
			}
		})
	}
}

// With perturbation off, a target the probe finds caching makes the
// comparison "inflated by caching"; check 5 re-derives the probe's
// variant half all the same.
func TestCacheProbeNoPerturb(t *testing.T) {
	t.Parallel()
	dir := makeProbeRun(t, t.TempDir(), probeSpec{cache: true, noPerturb: true, pairs: probePairs})
	rep := verifyDir(t, dir)
	c8, text := checkOf(rep, 8)
	if c8.Status != verify.Warn || !strings.Contains(text, "a: inflated by caching") || !strings.Contains(text, "b: inflated by caching") {
		t.Errorf("check 8 (%s) does not flag both targets inflated by caching:\n%s", c8.Status, text)
	}
	c5, text := checkOf(rep, 5)
	if !strings.Contains(text, "the cache probe's 18 variants (16 in its pairs + 2 warm-up) re-derive from their clip") {
		t.Errorf("check 5 (%s) does not re-derive the probe's variants:\n%s", c5.Status, text)
	}
	editRecords(t, dir, "records/a/probe-1.jsonl", func(r []schemas.Record) []schemas.Record {
		r[3].SampleIndex++
		return r
	})
	refresh(t, dir)
	if c5, text := checkOf(verifyDir(t, dir), 5); c5.Status != verify.Fail || !strings.Contains(text, "not the seeded plan's") {
		t.Errorf("check 5 (%s) missed a probe variant off the plan:\n%s", c5.Status, text)
	}
}

// The cache line of a target no counter observes has three states: the
// probe's verdict, or "not probed" when the run asked for none.
func TestCacheProbeStates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec probeSpec
		even bool // the probe's times rewritten equal for repeats and variants
		want string
	}{
		{"not asked", probeSpec{cache: true, personaB: "sglang-omni"}, false, "cache probe: not probed (the run asked for none)"},
		{"caches", probeSpec{cache: true, pairs: probePairs, personaB: "sglang-omni"}, false, "cache probe: caches identical audio (repeats "},
		// The times are rewritten: a loaded host's noise alone once made
		// 24 measured pairs' interval straddle the bound (undecided).
		{"no effect", probeSpec{pairs: probePairs, personaB: "sglang-omni"}, true, "cache probe: no cache effect seen (ratio within noise)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := makeProbeRun(t, t.TempDir(), tc.spec)
			if tc.even {
				editRecords(t, dir, "records/b/probe-1.jsonl", func(r []schemas.Record) []schemas.Record {
					for i := range r {
						r[i].EndNs = min(r[i].EndNs, r[i].StartNs+5e6+int64(r[i].Seq/2%4)*1e5)
					}
					return r
				})
				refresh(t, dir)
			}
			_, text := checkOf(verifyDir(t, dir), 8)
			if !regexp.MustCompile(`cache hits not observable for b: .*` + regexp.QuoteMeta(tc.want)).MatchString(text) {
				t.Errorf("check 8 lacks %q on b's cache line:\n%s", tc.want, text)
			}
		})
	}
}

// A probe whose speedup's interval straddles the noise bound is
// undecided: with perturbation off, check 8 warns that a cache is neither
// shown nor excluded; with it on, the line says so and holds. (Probe
// records shortened into repeats about 1.2× faster than variants, with
// wide spread, then claims recomputed.)
func TestCacheProbeUndecided(t *testing.T) {
	t.Parallel()
	for _, noPerturb := range []bool{true, false} {
		dir := makeProbeRun(t, t.TempDir(), probeSpec{noPerturb: noPerturb, pairs: probePairs, personaB: "sglang-omni"})
		editRecords(t, dir, "records/b/probe-1.jsonl", func(r []schemas.Record) []schemas.Record {
			for i := range r {
				if r[i].Seq < claims.ProbeWarmup {
					continue
				}
				ms := []int64{6, 10, 14, 18}[i%4]
				if r[i].SampleIndex >= 0 {
					ms += 2
				}
				r[i].EndNs = min(r[i].EndNs, r[i].StartNs+ms*1e6)
			}
			return r
		})
		refresh(t, dir)
		var cl schemas.Claims
		getJSON(t, filepath.Join(dir, "claims.json"), &cl)
		p := cl.Probes[1]
		if p.Verdict != claims.ProbeUnsure {
			t.Fatalf("probe of b: %+v", p)
		}
		c8, text := checkOf(verifyDir(t, dir), 8)
		switch {
		case noPerturb && (c8.Status != verify.Warn || !strings.Contains(text, "b's cache probe is undecided: speedup") || !strings.Contains(text, "neither shown nor excluded")):
			t.Errorf("perturbation off: check 8 (%s):\n%s", c8.Status, text)
		case !noPerturb && !strings.Contains(text, "b: undecided, a cache neither shown nor excluded (speedup"):
			t.Errorf("perturbation on: check 8 (%s):\n%s", c8.Status, text)
		}
	}
}
