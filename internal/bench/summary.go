package bench

import (
	"cmp"
	"fmt"
	"slices"
)

// ErrorRateWarn is the share of a step's measured requests that may fail
// before the step is worth a warning (TargetSummary.Noisy).
const ErrorRateWarn = 0.01

// TargetSummary is one target's measured requests over all its steps.
type TargetSummary struct {
	Target              string
	Steps               int // steps run, whole or not
	Planned             int // steps the protocol plans for the target
	Requests, Succeeded int
	Errors              map[string]int // failures by class
	// Noisy are the steps where more than ErrorRateWarn of the measured
	// requests failed, but not all; AllFailed those where every one did:
	// their figures are not measurements.
	Noisy     []StepResult
	AllFailed []Step
	// Short are the steps run that measured fewer requests than planned
	// (interrupted, or the target stopped during them).
	Short []StepResult
	// Stopped says the target was stopped (its server gone, or its
	// warm-ups failed) before its last planned step ended; Interrupted
	// that the run was.
	Stopped, Interrupted bool
}

// Summarize sums steps per target, in the order of targets; planned is
// the number of steps the protocol plans per target (levels × repeats).
func Summarize(targets []string, steps []StepResult, planned int) []TargetSummary {
	out := make([]TargetSummary, 0, len(targets))
	for _, t := range targets {
		ts := TargetSummary{Target: t, Planned: planned, Errors: map[string]int{}}
		for _, s := range steps {
			if s.Target != t {
				continue
			}
			ts.Steps++
			ts.Requests += s.Requests
			ts.Succeeded += s.Succeeded
			for k, v := range s.Errors {
				ts.Errors[k] += v
			}
			switch {
			case s.Requests > 0 && s.Succeeded == 0:
				ts.AllFailed = append(ts.AllFailed, s.Step)
			case s.Requests > 0 && float64(s.Requests-s.Succeeded) > ErrorRateWarn*float64(s.Requests):
				ts.Noisy = append(ts.Noisy, s)
			}
			if s.Requests < s.Planned {
				ts.Short = append(ts.Short, s)
			}
			ts.Stopped = ts.Stopped || s.Stopped
			ts.Interrupted = ts.Interrupted || s.Interrupted
		}
		if ts.Steps < planned && !ts.Interrupted {
			ts.Stopped = true // its remaining steps were skipped
		}
		out = append(out, ts)
	}
	return out
}

// Label names a step: "<target> c=<C> r=<R>".
func (s Step) Label() string {
	return fmt.Sprintf("%s c=%d r=%d", s.Target, s.Concurrency, s.Repeat)
}

// ClassCount is a failure class and how often it occurred.
type ClassCount struct {
	Class string
	N     int
}

// ByCount orders failure counts most frequent first, then by class.
func ByCount(m map[string]int) []ClassCount {
	out := make([]ClassCount, 0, len(m))
	for k, v := range m {
		out = append(out, ClassCount{k, v})
	}
	slices.SortFunc(out, func(a, b ClassCount) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Class, b.Class)) })
	return out
}

// NotWAVs returns every *NotWAVError in err's tree, depth first, outermost
// first: the files of a corpus that are another audio format under a .wav
// name.
func NotWAVs(err error) []*NotWAVError {
	var out []*NotWAVError
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if nw, ok := err.(*NotWAVError); ok {
			out = append(out, nw)
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}
