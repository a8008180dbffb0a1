package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// recorderHooks are the fingerprint recorder's hooks as benchseal run
// wires them (internal/session): scrapes, samples and steps.jsonl, with
// the attempt of each step.
func recorderHooks(url string) Hooks {
	rec := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: 20 * time.Millisecond,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: url}}})
	return Hooks{
		BeforeSweep: func(ctx context.Context, d *Dir) error { return rec.BeforeSweep(ctx, d.Path, d.Anchor) },
		BeforeStep: func(ctx context.Context, d *Dir, s Step) error {
			return rec.StepStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		BeforeMeasure: func(ctx context.Context, d *Dir, s Step) error {
			return rec.MeasureStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		AfterStep: func(ctx context.Context, d *Dir, r StepResult) error {
			_, err := rec.StepEndAttempt(ctx, r.Target, r.Concurrency, r.Repeat, r.Attempt, r.Discarded, r.StartNs, r.EndNs)
			return err
		},
		AfterSweep: func(ctx context.Context, d *Dir) error { return rec.AfterSweep(ctx) },
	}
}

// holdBack is a StallHook that holds worker 0's second measured request
// of step c=2 repeat 1 back by d, in the attempts for which on says so.
func holdBack(d time.Duration, on func(attempt int) bool) StallHook {
	return func(s Step, phase string, worker, n int) time.Duration {
		if s.Concurrency == 2 && s.Repeat == 1 && phase == schemas.PhaseMeasure && worker == 0 && n == 1 && on(s.Attempt) {
			return d
		}
		return 0
	}
}

// attemptFindings are check 7's FAILs about attempts and check 5's FAILs.
func attemptFindings(t *testing.T, dir string) []string {
	t.Helper()
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, c := range rep.Checks {
		t.Logf("%s %s: %s", c.Status, c.Name, c.Summary)
	}
	for _, f := range rep.Check(verify.CheckProtocol).Findings {
		t.Logf("check 7 %s %s: %s", f.Status, f.Path, f.Reason)
	}
	for _, f := range rep.Check(verify.CheckVariants).Findings {
		if f.Status == verify.Fail {
			bad = append(bad, "check 5: "+f.Path+": "+f.Reason)
		}
	}
	for _, f := range rep.Check(verify.CheckProtocol).Findings {
		if f.Status == verify.Fail && (strings.Contains(f.Path, "/attempts/") || strings.Contains(f.Reason, "attempt") || strings.Contains(f.Reason, "request_id")) {
			bad = append(bad, "check 7: "+f.Path+": "+f.Reason)
		}
	}
	return bad
}

// TestRemeasureStalledStep: a real run against a simulated server on
// loopback, in which worker 0 of step c=2 r=1 is held back 600 ms in its
// first attempt only (a stall the host could cause, ~40 % of the phase's
// worker time): the runner applies check 7's stall rule, discards that
// attempt (its records under records/a/attempts/, its scrapes under
// servers/a/metrics/attempts/, its steps.jsonl line marked discarded),
// measures the step again and keeps the second attempt, whose records say
// attempt 2; claims come from it alone, and verify holds every attempt
// without a FAIL. Without re-measuring, the step would be kept stalled.
func TestRemeasureStalledStep(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.25)
	srv := simServer(t, sim.Config{Corpus: sc, BaseLatency: 60 * time.Millisecond})
	dir, res, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: srv.URL}}, Corpus: clips,
		Levels: []int{1, 2}, Requests: []int{6}, Repeats: 1, Seed: 5},
		WithHooks(recorderHooks(srv.URL)), WithStallHook(holdBack(600*time.Millisecond, func(a int) bool { return a == 1 })))
	if err != nil {
		t.Fatal(err)
	}
	var first *StepResult
	for i := range res.Discarded {
		if d := &res.Discarded[i]; d.Concurrency == 2 && d.Attempt == 1 {
			first = d
		}
	}
	if first == nil || first.Stall == nil || !first.Stall.Open() {
		t.Fatalf("attempt 1 of c=2 r=1 was not discarded for its stall: discarded %+v", res.Discarded)
	}
	if !exists(filepath.Join(dir, filepath.FromSlash(schemas.AttemptRecordsPath("a", 2, 1, 1)))) {
		t.Fatalf("attempt 1's records are not kept in %s", schemas.AttemptRecordsPath("a", 2, 1, 1))
	}
	for _, when := range []string{"before", "measure", "after"} {
		if p := schemas.AttemptMetricsPath("a", 2, 1, 1, when); !exists(filepath.Join(dir, filepath.FromSlash(p))) {
			t.Errorf("attempt 1's %s scrape is not kept in %s", when, p)
		}
	}
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(tel.Discarded) < 1 || tel.Discarded[0].Attempt != 1 || tel.Discarded[0].Concurrency != 2 {
		t.Fatalf("steps.jsonl's discarded lines: %+v", tel.Discarded)
	}
	// Claims come from the kept attempt alone: 6 measured requests at c=2.
	_, recs, cl, err := claims.RecomputeDir(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got := cl.Targets[0].Levels[1].Repeats[0].Requests; got != 6 || cl.Targets[0].Levels[1].Concurrency != 2 {
		t.Errorf("claims at c=2 count %d requests, want the kept attempt's 6", got)
	}
	var kept []schemas.Record
	for _, r := range recs {
		if r.Concurrency == 2 {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 || kept[0].Attempt < 2 || !strings.HasSuffix(kept[0].RequestID, "-a"+itoa(kept[0].Attempt)) {
		t.Fatalf("the step's own file holds attempt %d (request id %q), want the re-measured one", kept[0].Attempt, kept[0].RequestID)
	}
	for _, r := range kept {
		if r.Attempt != kept[0].Attempt {
			t.Fatalf("the kept file mixes attempts %d and %d", kept[0].Attempt, r.Attempt)
		}
	}
	if bad := attemptFindings(t, dir); len(bad) > 0 {
		t.Errorf("verify fails the re-measured run:\n%s", strings.Join(bad, "\n"))
	}
}

// TestStalledAfterRetries: a step held back in every attempt is measured
// 1 + MaxRemeasures times, then kept and named in Result.Stalled and a
// run.json note (the CLI exits 1 on it); verify FAILs its stall, not its
// attempts.
func TestStalledAfterRetries(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.25)
	srv := simServer(t, sim.Config{Corpus: sc, BaseLatency: 60 * time.Millisecond})
	dir, res, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: srv.URL}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{6}, Repeats: 1, Seed: 5},
		WithHooks(recorderHooks(srv.URL)), WithStallHook(holdBack(600*time.Millisecond, func(int) bool { return true })))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stalled) != 1 || res.Stalled[0].Attempt != 1+MaxRemeasures || len(res.Discarded) != MaxRemeasures {
		t.Fatalf("stalled %+v, discarded %d: want the step kept after %d attempts", res.Stalled, len(res.Discarded), 1+MaxRemeasures)
	}
	if !strings.Contains(strings.Join(res.Run.Notes, "\n"), "still stalled after 3 attempts") {
		t.Errorf("run.json's notes do not say the step stalled: %q", res.Run.Notes)
	}
	if bad := attemptFindings(t, dir); len(bad) > 0 {
		t.Errorf("verify fails the attempts themselves:\n%s", strings.Join(bad, "\n"))
	}
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Check(verify.CheckProtocol); c.Status != verify.Fail || !strings.Contains(findingsText(c), "stalls add up to") {
		t.Errorf("check 7 does not FAIL the stalled kept attempt: %s", c.Summary)
	}
}

func findingsText(c *verify.Check) string {
	var b strings.Builder
	for _, f := range c.Findings {
		b.WriteString(f.Reason + "\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
