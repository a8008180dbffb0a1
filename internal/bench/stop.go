package bench

import (
	"fmt"
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
// run; what was measured before is kept.
type TargetStoppedError struct {
	Targets map[string]string // target -> why
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
	return strings.Join(parts, "; ")
}

// stopped reports whether target's server is gone.
func (r *runner) stopped(target string) bool {
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
