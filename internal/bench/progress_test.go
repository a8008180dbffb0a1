package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// On a terminal the bar's error count and the step's final line count the
// same thing: failed measured requests. Warm-ups that fail are not errors
// of the step (claims never count them), so the bar must not show them.
func TestProgressBarCountsMeasuredErrors(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	p.(*progress).throttle = 0 // render every update, so the buffer holds each one
	s := Step{Target: "a", Concurrency: 2, Repeat: 1}
	p.Begin(s, 5) // 2 warm-ups, 3 measured
	p.Done(schemas.PhaseWarmup, false)
	p.Done(schemas.PhaseWarmup, false)
	p.Done(schemas.PhaseMeasure, true)
	p.Done(schemas.PhaseMeasure, false)
	p.Done(schemas.PhaseMeasure, true)
	p.End(StepResult{Step: s, Warmup: 2, Requests: 3, Succeeded: 2, Errors: map[string]int{schemas.ErrHTTP: 1}})
	out := buf.String()
	if !strings.Contains(out, "a c=2 r=1 (1 errors)") {
		t.Errorf("the bar never showed the one measured error:\n%q", out)
	}
	for _, wrong := range []string{"(2 errors)", "(3 errors)"} {
		if strings.Contains(out, wrong) {
			t.Errorf("the bar counted failed warm-ups as errors (%s):\n%q", wrong, out)
		}
	}
	if !strings.HasSuffix(out, "benchseal: a c=2 r=1: 2/3 ok 1 errors 0.0 req/s\n") {
		t.Errorf("final line:\n%q", out)
	}
}
