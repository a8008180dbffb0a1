package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Re-measuring a step (issue 36): the runner holds each closed-loop step
// it measured to the stall rule verify's check 7 holds it to
// (claims.Stalls, one function for both). A step whose stalls, in its
// warm-ups or its measured requests, add up to more than
// claims.MaxStallShare of the phase's worker time did not measure a
// closed loop of C workers (the client host starved it), and check 7
// would FAIL it. Such an attempt is discarded and the step measured
// again, whole (warm-ups, hooks, scrapes), at most MaxRemeasures times;
// the last attempt is the one measured, whatever its stalls.
//
// Nothing is hidden: a discarded attempt's records move to
// records/<t>/attempts/c<C>-r<R>-a<k>.jsonl (schemas.AttemptRecordsPath),
// its steps.jsonl line says attempt k, discarded (the recorder's, which
// also moves its scrapes to servers/<t>/metrics/attempts/), and the kept
// attempt's records carry attempt k (absent for 1) in the step's own
// file, with request ids ending "-a<k>" (AttemptRequestID). A re-measured
// attempt numbers its variants past every number the plan uses
// (extraCounter), in the order attempts are sent, so that the plan's
// numbering stays run.json's alone and every request still sends its own
// bytes. A step whose last attempt still breaks the rule is in
// Result.Stalled, and said at once.

// MaxRemeasures is how many times a step is measured again at most.
const MaxRemeasures = claims.MaxRemeasures

// StallHook, for tests only, delays worker's n-th request (from 0) of a
// phase of step s before it is sent: it provokes a stall.
type StallHook func(s Step, phase string, worker, n int) time.Duration

// WithStallHook installs a StallHook (tests only: it holds a worker back).
func WithStallHook(h StallHook) Option { return func(c *config) { c.stallHook = h } }

// measure measures step s (attempt 1) and again while an attempt is
// discarded; it returns the kept attempt's result.
func (r *runner) measure(ctx context.Context, ti int, s Step) (StepResult, error) {
	for {
		res, err := r.step(ctx, ti, s)
		if err != nil || !res.Discarded {
			if err == nil && res.Stall != nil && res.Stall.Open() {
				r.stalled = append(r.stalled, res)
				r.noteStalled(res)
			}
			return res, err
		}
		r.discarded = append(r.discarded, res)
		s.Attempt++
	}
}

// judgeStalls applies the stall rule to a closed-loop step's planned
// records (recs, its retried warm-ups left out) and, when they break it
// and the step may be measured again, discards the attempt: its records
// file (path) moves to the attempts folder.
func (r *runner) judgeStalls(ctx context.Context, res *StepResult, recs []schemas.Record, path string) error {
	if r.plan.Open() || res.Interrupted || res.Stopped {
		return nil
	}
	st, ok := claims.WorstStall(recs, res.Concurrency)
	if !ok {
		return nil
	}
	res.Stall = &st
	if !st.Open() || res.Attempt > MaxRemeasures || ctx.Err() != nil || r.stopped(res.Target) {
		return nil
	}
	if !r.extraFits(res.Level, res.Repeat) {
		r.cfg.progress.Warnf("%s: stalls add up to %.1f %% of the %s phase's worker time, more than the %.0f %% verify allows, but its clips have no unused samples left to measure it again",
			stepName(res.Step), 100*st.Share, st.Phase, 100*claims.MaxStallShare)
		return nil
	}
	to := filepath.Join(r.d.Path, filepath.FromSlash(schemas.AttemptRecordsPath(res.Target, res.Concurrency, res.Repeat, res.Attempt)))
	if err := moveNew(path, to); err != nil {
		return fmt.Errorf("keep the discarded attempt %d of %s: %w", res.Attempt, stepName(res.Step), err)
	}
	res.Discarded = true
	r.cfg.progress.Warnf("%s: %s; stalls add up to %.1f %% of the %s phase's worker time, more than the %.0f %% verify allows: measuring the step again (attempt %d of at most %d; attempt %d is kept in %s)",
		stepName(res.Step), st.First, 100*st.Share, st.Phase, 100*claims.MaxStallShare, res.Attempt+1, MaxRemeasures+1, res.Attempt,
		schemas.AttemptRecordsPath(res.Target, res.Concurrency, res.Repeat, res.Attempt))
	return nil
}

// noteStalled says, in run.json's notes and at once, that a step's last
// attempt still broke the stall rule.
func (r *runner) noteStalled(res StepResult) {
	msg := StalledMessage(res)
	r.d.Run.Notes = append(r.d.Run.Notes, msg)
	r.cfg.progress.Warnf("%s", msg)
}

// StalledMessage is what the runner says of a step whose last attempt
// broke the stall rule.
func StalledMessage(res StepResult) string {
	return fmt.Sprintf("%s: the closed loop still stalled after %d attempts: %s; stalls add up to %.1f %% of the %s phase's worker time, more than the %.0f %% verify allows (check 7 will fail it)",
		stepName(Step{Target: res.Target, Concurrency: res.Concurrency, Repeat: res.Repeat}), res.Attempt, res.Stall.First, 100*res.Stall.Share, res.Stall.Phase, 100*claims.MaxStallShare)
}

// extraCounter is the variant numbering of re-measured attempts: each
// clip's numbers start past every number the plan gives it (its
// FirstVariant plus variantsNeeded, the cache probe's included).
func (r *runner) extraCounter() map[[32]byte]int64 {
	if r.extra == nil {
		r.extra = variantsNeeded(r.plan)
		for k, v := range r.plan.FirstVariant {
			r.extra[k] += v
		}
	}
	return r.extra
}

// extraFits says whether the clips of level li, repeat have samples left
// for one more attempt's variants.
func (r *runner) extraFits(li, repeat int) bool {
	p := r.plan
	if p.NoPerturb {
		return true
	}
	extra := r.extraCounter()
	need := map[[32]byte]int64{}
	w, n := p.warmupAt(li, repeat), p.Requests[li]
	for seq := range w + n {
		i := seq
		if seq >= w {
			i = seq - w
		}
		if c := &p.Corpus[i%len(p.Corpus)]; !c.NoInput() {
			need[c.SHA256]++
			if extra[c.SHA256]+need[c.SHA256] > c.WAV.Samples() {
				return false
			}
		}
	}
	return true
}

// moveNew moves from to to, which must not exist (a new name, never an
// overwrite: the link fails when to exists).
func moveNew(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Link(from, to); err != nil {
		return err
	}
	return os.Remove(from)
}
