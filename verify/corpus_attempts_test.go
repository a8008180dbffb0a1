package verify_test

// Doctored kinds of issue 36: a step the runner measured again. Their base
// is attemptRun: a real run in which the runner found a stalled closed
// loop (provoked: worker 0 held back in the step's first attempt) and
// measured the step again, sealing both attempts.

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, attemptKinds) }

var attemptBase struct {
	once sync.Once
	dir  string
}

// The step measured twice, its discarded attempt and the kept one.
var (
	remeasured      = schemas.RecordsPath("a", 3, 1)
	discardedRecord = schemas.AttemptRecordsPath("a", 3, 1, 1)
)

// attemptRun is a run directory of one simulated vLLM (60 ms a request),
// levels 1 and 3, 6 measured requests, 1 repeat, with the recorder's
// scrapes and steps.jsonl, in which worker 0's second measured request of
// c=3 r=1 was held back 600 ms in attempt 1 only: the runner discarded
// that attempt (records/a/attempts/c3-r1-a1.jsonl) and kept attempt 2.
func attemptRun(tb testing.TB) string {
	attemptBase.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "attempts-")
		must(tb, err)
		sc, clips := writeCorpus(tb, base, 0.3, 41)
		// The server exports its spans (vLLM's OpenTelemetry): the
		// discarded attempt's requests reached it too, and check 10 and
		// the ids must take them in.
		otlp, err := serverevents.Listen("127.0.0.1:0")
		must(tb, err)
		defer otlp.Close()
		s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 60 * time.Millisecond, OTLPEndpoint: "http://" + otlp.Addr()})
		must(tb, err)
		ts := httptest.NewServer(s)
		defer ts.Close()
		rec := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: 20 * time.Millisecond,
			Targets: map[string]fingerprint.Endpoint{"a": {URL: ts.URL}}})
		hooks := bench.Hooks{
			BeforeSweep: func(ctx context.Context, d *bench.Dir) error { return rec.BeforeSweep(ctx, d.Path, d.Anchor) },
			BeforeStep: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
				return rec.StepStart(ctx, s.Target, s.Concurrency, s.Repeat)
			},
			BeforeMeasure: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
				return rec.MeasureStart(ctx, s.Target, s.Concurrency, s.Repeat)
			},
			AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
				_, err := rec.StepEndAttempt(ctx, r.Target, r.Concurrency, r.Repeat, r.Attempt, r.Discarded, r.StartNs, r.EndNs)
				return err
			},
			AfterSweep: func(ctx context.Context, d *bench.Dir) error {
				silent, err := serverevents.CollectOTLP(ctx, d.Path, d.Run, otlp, 30*time.Second)
				if err != nil || len(silent) > 0 {
					tb.Errorf("collecting the spans: %v (no spans from %v)", err, silent)
				}
				return rec.AfterSweep(ctx)
			},
		}
		hold := bench.WithStallHook(func(s bench.Step, phase string, worker, n int) time.Duration {
			if s.Concurrency == 3 && s.Attempt == 1 && phase == schemas.PhaseMeasure && worker == 0 && n == 1 {
				return 600 * time.Millisecond
			}
			return 0
		})
		dir := filepath.Join(base, "run")
		res, err := bench.Run(context.Background(), dir, bench.Plan{Targets: []bench.Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
			Levels: []int{1, 3}, Requests: []int{6}, Repeats: 1, Seed: 31}, bench.WithHooks(hooks), hold, bench.WithTool(testTool()))
		must(tb, err)
		if len(res.Discarded) == 0 || !exists(filepath.Join(dir, filepath.FromSlash(discardedRecord))) {
			tb.Fatalf("the runner did not measure c=3 r=1 again: discarded %+v", res.Discarded)
		}
		writeReport(tb, dir)
		attemptBase.dir = dir
	})
	if attemptBase.dir == "" {
		tb.Fatal("the attempts base run failed to build")
	}
	return attemptBase.dir
}

// dropDiscardedLine removes steps.jsonl's line of the discarded attempt.
func dropDiscardedLine(tb testing.TB, dir string) {
	editFile(tb, dir, schemas.StepsFile, func(s string) string {
		var keep []string
		for _, l := range strings.SplitAfter(s, "\n") {
			if !strings.Contains(l, `"discarded":true`) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "")
	})
}

func attemptKinds() []kind {
	fail := verify.Fail
	return []kind{
		// The discarded attempt's records are taken out; steps.jsonl
		// still names it.
		{name: "attempt-hidden", class: "protocol", check: 7, status: fail, base: attemptRun, text: "an attempt was hidden",
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.Remove(filepath.Join(dir, filepath.FromSlash(discardedRecord))))
			}},
		// The discarded attempt is taken out everywhere: its records, its
		// steps.jsonl line and its scrapes. The kept records still say
		// attempt 2 (and their ids and variants are attempt 2's).
		{name: "attempt-hidden-everywhere", class: "protocol", check: 7, status: fail, base: attemptRun, text: "an attempt was hidden",
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.Remove(filepath.Join(dir, filepath.FromSlash(discardedRecord))))
				must(tb, os.RemoveAll(filepath.Join(dir, "servers", "a", "metrics", schemas.AttemptsDir)))
				dropDiscardedLine(tb, dir)
			}},
		// The claims are drawn from the discarded attempt: its records are
		// put in the step's own file (claims.json and REPORT.md
		// recomputed), the attempts file left where it was.
		{name: "claims-from-discarded-attempt", class: "protocol", check: 7, status: fail, base: attemptRun, text: "claims drawn from a discarded attempt",
			doctor: func(tb testing.TB, dir string) {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(discardedRecord)))
				must(tb, err)
				must(tb, os.WriteFile(filepath.Join(dir, filepath.FromSlash(remeasured)), b, 0o644))
				refresh(tb, dir)
			}},
		// An attempts file steps.jsonl does not name: a measurement slipped
		// in beside the kept one.
		{name: "attempt-unnamed", class: "protocol", check: 7, status: fail, base: attemptRun, text: "names no such discarded attempt",
			doctor: func(tb testing.TB, dir string) {
				dropDiscardedLine(tb, dir)
			}},
	}
}

// TestAttemptBase: the undoctored re-measured run verifies with no FAIL
// about its attempts (check 7 holds them, check 5 their variants, the
// ids and the gaps between steps take the discarded attempt in), and
// check 7's summary names the step measured again.
func TestAttemptBase(t *testing.T) {
	dir := attemptRun(t)
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	must(t, err)
	if c := rep.Check(verify.CheckVariants); c.Status == verify.Fail {
		t.Errorf("check 5 FAILs: %s %+v", c.Summary, c.Findings)
	}
	if c := rep.Check(verify.CheckClaims); c.Status == verify.Fail {
		t.Errorf("check 6 FAILs: %s %+v", c.Summary, c.Findings)
	}
	if c := rep.Check(verify.CheckEvents); c.Status != verify.Pass {
		t.Errorf("check 10 (the server's spans, the discarded attempt's among them): %s %s %+v", c.Status, c.Summary, c.Findings)
	}
	c := rep.Check(verify.CheckProtocol)
	for _, f := range c.Findings {
		// A stall the loaded host caused in another step is not this
		// test's; one about attempts, ids or gaps is.
		if f.Status == verify.Fail && !strings.Contains(f.Reason, "stalls add up to") {
			t.Errorf("check 7 FAILs %s: %s", f.Path, f.Reason)
		}
	}
	if !strings.Contains(c.Summary, "a c=3 repeat 1 (2 attempts)") {
		t.Errorf("check 7's summary does not name the step measured again: %s", c.Summary)
	}
	for _, c := range rep.Checks {
		t.Logf("%s %s: %s", c.Status, c.Name, c.Summary)
	}
}
