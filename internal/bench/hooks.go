package bench

import (
	"context"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Step is one target at one level and repeat: the unit the sweep
// interleaves and the unit of one records file.
type Step struct {
	Target      string
	Level       int // index into Plan.Levels
	Concurrency int
	// Rate is an open-loop level's offered rate in requests per second
	// (its Concurrency is then the level's number, 1..n); 0 in a closed
	// loop.
	Rate   float64
	Repeat int // 1-based
	// Attempt is which measurement of the step this is, from 1: a
	// closed-loop step whose stalls break the stall rule is measured
	// again (attempt.go), at most MaxRemeasures times.
	Attempt int
	// WarmupSucceeded is how many of the step's warm-ups succeeded, once
	// they are done (BeforeMeasure, AfterStep; 0 in BeforeStep): a hook
	// that waits for the server to count them needs it.
	WarmupSucceeded int
}

// StepResult summarises a step once its requests are done. The *Ns fields
// are offsets from the run's anchor, like the records'.
type StepResult struct {
	Step
	Warmup    int // warm-up requests done
	Requests  int // measured requests done
	Planned   int // measured requests the protocol plans for the step
	Succeeded int
	Errors    map[string]int // measured failures by class
	StartNs   int64          // first measured start
	EndNs     int64          // last measured end
	// Interrupted is true when Ctrl-C stopped the step early.
	Interrupted bool
	// Stopped is true when the target's server went away (WithTargetStop)
	// before every request of the step was sent.
	Stopped bool
	// Stall is the worst phase of the stall rule (claims.Stalls) in the
	// step's records, nil when none stalled; Discarded says the attempt
	// broke the rule and the step is measured again (AfterStep sees it
	// before the next attempt's BeforeStep): its records were moved to
	// schemas.AttemptRecordsPath.
	Stall     *claims.PhaseStall
	Discarded bool
}

// ReqPerS is succeeded requests per second of the measured window.
func (r StepResult) ReqPerS() float64 {
	if r.EndNs <= r.StartNs {
		return 0
	}
	return float64(r.Succeeded) / (float64(r.EndNs-r.StartNs) / 1e9)
}

// Dir is the run directory while the run is in progress, as hooks see it.
// Hooks run on the runner's goroutine, one at a time, so they may change
// Run (add notes, events, target details) and write files under Path
// (env/, telemetry/, servers/) without locking.
type Dir struct {
	Path   string
	Run    *schemas.Run
	Anchor time.Time // Run.StartedAt, with its monotonic reading
}

// Offset is t as a record offset: nanoseconds since the anchor, measured
// with the monotonic clock when t has one.
func (d *Dir) Offset(t time.Time) int64 { return t.Sub(d.Anchor).Nanoseconds() }

// Event appends a run event stamped now.
func (d *Dir) Event(target, kind, detail string) {
	d.Run.Events = append(d.Run.Events, schemas.RunEvent{AtNs: time.Since(d.Anchor).Nanoseconds(),
		Target: target, Kind: kind, Detail: detail})
}

// Hooks let other parts of benchseal (fingerprints, telemetry samplers,
// server probes, launchers) take part in a run without the runner knowing
// them. Every field is optional. They are called on the runner's goroutine:
//
//	BeforeSweep  after preflight, once the run directory and run.json exist;
//	             an error aborts the run before anything is measured and
//	             removes the run directory (it holds no record); it may
//	             set d.Run.Seed, which the sweep then draws from (run --tsa:
//	             the seed bound to the plan's token, schemas.TokenSeed)
//	Aborted      after a BeforeSweep error, before the run directory is
//	             removed: a hook moves out what must outlive it (a launched
//	             server's log)
//	BeforeStep   before a step's warm-ups (its variants are computed already)
//	BeforeMeasure after a step's warm-ups, just before its first measured
//	             request is sent (telemetry samples the window's start)
//	AfterStep    after a step's measured requests all ended
//	BeforeProbe  before a target's active cache probe (after the sweep)
//	AfterProbe   after its last probe request ended
//	AfterSweep   after the sweep (also after an interrupt), before run.json
//	             is finalised and claims.json written
//
// Errors of BeforeStep, BeforeMeasure, AfterStep, the probe's hooks and AfterSweep are
// recorded as a "hook_error" event and shown as a warning; the sweep goes
// on.
type Hooks struct {
	BeforeSweep func(ctx context.Context, d *Dir) error
	// Aborted is called with the BeforeSweep error that aborted the run.
	Aborted    func(d *Dir, err error)
	BeforeStep func(ctx context.Context, d *Dir, s Step) error
	AfterStep  func(ctx context.Context, d *Dir, r StepResult) error
	AfterSweep func(ctx context.Context, d *Dir) error

	// BeforeMeasure is called between warm-ups and measured requests.
	BeforeMeasure func(ctx context.Context, d *Dir, s Step) error

	// BeforeProbe and AfterProbe bracket a target's cache probe (probe.go).
	BeforeProbe func(ctx context.Context, d *Dir, target string) error
	AfterProbe  func(ctx context.Context, d *Dir, target string) error
}
