package bench

import (
	"fmt"

	"github.com/benchseal/benchseal/schemas"
	"sort"
	"strings"
)

// WithTargetStop tells the runner that target's server is gone once
// stopped is closed (a launched server that exited): the runner stops
// starting that target's requests (those in flight end as they will, most
// likely as connect errors), skips its remaining steps while the other
// targets go on, records a "server_exited" event with why(), and at the end
// marks the run incomplete and returns a *TargetStoppedError with the
// Result. why may be nil.
func WithTargetStop(target string, stopped <-chan struct{}, why func() string) Option {
	return func(c *config) {
		if c.stops == nil {
			c.stops = map[string]targetStop{}
		}
		c.stops[target] = targetStop{stopped, why}
	}
}

type targetStop struct {
	ch  <-chan struct{}
	why func() string
}

// TargetStoppedError says which targets' servers went away during the
// run, and which targets were stopped because every warm-up request of a
// step failed; what was measured before is kept.
type TargetStoppedError struct {
	Targets map[string]string // target -> why its server exited
	// WarmupFailed maps a target to the first error of the step whose
	// warm-ups all failed (a wrong model, a bad form field, a server
	// refusing every request): measuring it would only record failures.
	WarmupFailed map[string]string
	// Unreachable maps a target to why its server was found gone (a
	// server benchseal did not launch, killed or crashed mid-step): the
	// last measured request of every worker of a step failed to connect.
	Unreachable map[string]string
}

func (e *TargetStoppedError) Error() string {
	names := make([]string, 0, len(e.Targets))
	for t := range e.Targets {
		names = append(names, t)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, t := range names {
		parts[i] = fmt.Sprintf("server %s exited during the run", t)
		if why := e.Targets[t]; why != "" {
			parts[i] += " (" + why + ")"
		}
	}
	names = names[:0]
	for t := range e.WarmupFailed {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		parts = append(parts, fmt.Sprintf("target %s stopped: every warm-up request failed; the first: %s", t, e.WarmupFailed[t]))
	}
	names = names[:0]
	for t := range e.Unreachable {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		parts = append(parts, fmt.Sprintf("target %s stopped: its server stopped answering (%s)", t, e.Unreachable[t]))
	}
	return strings.Join(parts, "; ")
}

// stopped reports whether target's server is gone.
func (r *runner) stopped(target string) bool {
	if _, ok := r.warmFailed[target]; ok {
		return true
	}
	if _, ok := r.unreachable[target]; ok {
		return true
	}
	s, ok := r.cfg.stops[target]
	if !ok {
		return false
	}
	select {
	case <-s.ch:
		return true
	default:
		return false
	}
}

// noteStopped records, once, that target's server is gone.
func (r *runner) noteStopped(target string) {
	if _, done := r.gone[target]; done {
		return
	}
	if _, ok := r.warmFailed[target]; ok {
		return // recorded when its warm-ups failed (stopWarmupFailed)
	}
	if _, ok := r.unreachable[target]; ok {
		return // recorded when it stopped answering (stopUnreachable)
	}
	why := ""
	if s := r.cfg.stops[target]; s.why != nil {
		why = s.why()
	}
	r.gone[target] = why
	msg := fmt.Sprintf("server %s exited during the run", target)
	if why != "" {
		msg += " (" + why + ")"
	}
	r.d.Event(target, "server_exited", msg+"; its remaining steps were skipped")
	r.d.Run.Notes = append(r.d.Run.Notes, msg)
	r.cfg.progress.Warnf("%s: no longer measuring it", msg)
}

func (r *runner) stoppedError() *TargetStoppedError {
	e := &TargetStoppedError{Targets: r.gone, WarmupFailed: r.warmFailed}
	if len(r.unreachable) > 0 {
		e.Unreachable = r.unreachable
	}
	return e
}

// stopUnreachable stops target when its server stopped answering during
// step s: the last measured request of every worker that sent one failed
// to connect (connection refused) or had its connection reset, at least
// one refused, so the server is gone, whether benchseal launched it or
// not. Measuring its remaining steps would only record failures, and a run
// that lost its server is not complete. It returns whether the target was
// stopped.
func (r *runner) stopUnreachable(s Step, measured []schemas.Record) bool {
	if r.stopped(s.Target) {
		return false
	}
	last := map[int]*schemas.Record{}
	for i := range measured {
		m := &measured[i]
		if m.Target == "" {
			continue // never sent
		}
		if l, ok := last[m.Worker]; !ok || m.EndNs > l.EndNs {
			last[m.Worker] = m
		}
	}
	if len(last) == 0 {
		return false
	}
	var first *schemas.Record
	for _, m := range last {
		if m.OK || (m.ErrorClass != schemas.ErrConnect && m.ErrorClass != schemas.ErrReset) {
			return false
		}
		if m.ErrorClass == schemas.ErrConnect && (first == nil || m.EndNs < first.EndNs) {
			first = m
		}
	}
	if first == nil {
		return false // every connection was reset, none refused: a server may still be there
	}
	refused, reset := 0, 0
	for i := range measured {
		switch {
		case measured[i].Target == "":
		case measured[i].ErrorClass == schemas.ErrConnect:
			refused++
		case measured[i].ErrorClass == schemas.ErrReset:
			reset++
		}
	}
	why := fmt.Sprintf("in %s the last request of every worker (%d) failed to connect or was reset, %d connect failures and %d resets in all: %s",
		stepName(s), len(last), refused, reset, first.Error)
	if r.unreachable == nil {
		r.unreachable = map[string]string{}
	}
	r.unreachable[s.Target] = why
	msg := fmt.Sprintf("target %s stopped: its server stopped answering (%s)", s.Target, why)
	r.d.Event(s.Target, "server_unreachable", msg+"; its remaining steps were skipped")
	r.d.Run.Notes = append(r.d.Run.Notes, msg)
	r.cfg.progress.Warnf("%s", msg)
	return true
}
