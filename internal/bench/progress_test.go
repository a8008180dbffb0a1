package bench

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// fakeClock is a settable time for progress tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testProgress(buf *bytes.Buffer, terminal bool, cols int) (*progress, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	p := NewProgress(buf, terminal).(*progress)
	p.throttle = 0 // render every update, so the buffer holds each one
	p.now = clock.now
	p.width = func() int { return cols }
	return p, clock
}

// done is a record of phase, ok or failed with an HTTP status, of 100 ms.
func done(phase string, ok bool) *schemas.Record {
	r := &schemas.Record{Phase: phase, OK: ok, StartNs: 1e9, EndNs: 1.1e9}
	if !ok {
		r.ErrorClass = schemas.ErrHTTP
	}
	return r
}

// frames splits terminal output into the lines drawn in place.
func frames(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, "\r") {
		if f = strings.TrimSuffix(f, "\x1b[K"); f != "" {
			fs = append(fs, f)
		}
	}
	return fs
}

// On a terminal the bar counts what the step's final line and the claims
// count: measured requests. Warm-ups are shown apart and never enter the
// denominator or the errors; the live rate counts successes only; the line
// says which step of the sweep it is and how long the sweep has left.
func TestProgressBarCountsMeasuredRequests(t *testing.T) {
	var buf bytes.Buffer
	p, clock := testProgress(&buf, true, 120)
	s := Step{Target: "a", Concurrency: 2, Repeat: 1}
	p.Sweep(uniform(4, 5, 2))
	p.Begin(s, 2, 3)
	p.Done(done(schemas.PhaseWarmup, false))
	p.Done(done(schemas.PhaseWarmup, false))
	clock.add(time.Second)
	p.Done(done(schemas.PhaseMeasure, true))
	p.Done(done(schemas.PhaseMeasure, false))
	p.Done(done(schemas.PhaseMeasure, true))
	out := buf.String()
	fs := frames(out)
	if !strings.Contains(fs[1], "[1/4] a c=2 r=1 warm-up 1/2") {
		t.Errorf("warm-up frame: %q", fs[1])
	}
	last := fs[len(fs)-1]
	// 5 of the sweep's 20 requests took 1 s: 15 left take about 3 s.
	if !strings.Contains(last, "] 3/3 measured 1 errors (http 1) 2.0 req/s p50 100ms p99 100ms ~3s left") {
		t.Errorf("last frame: %q", last)
	}
	for _, f := range fs {
		if strings.Contains(f, "/5") || strings.Contains(f, "2 errors") || strings.Contains(f, "3.0 req/s") {
			t.Errorf("warm-ups or failures counted: %q", f)
		}
	}
	buf.Reset()
	clock.add(time.Second) // the sweep's pace is now 5 requests in 2 s
	p.End(StepResult{Step: s, Warmup: 2, Requests: 3, Succeeded: 2, Errors: map[string]int{schemas.ErrHTTP: 1}})
	if got, want := buf.String(), "\r\x1b[Kbenchseal: a c=2 r=1: 2/3 ok 1 errors 0.0 req/s (step 1 of 4, about 6s left)\n"; got != want {
		t.Errorf("final line:\n%q\nwant\n%q", got, want)
	}
}

// A 70-column terminal keeps a bar of at least 10 cells and never draws a
// line that would wrap.
func TestProgressNarrowTerminal(t *testing.T) {
	for _, cols := range []int{70, 60, 30} {
		var buf bytes.Buffer
		p, clock := testProgress(&buf, true, cols)
		s := Step{Target: "sglang", Concurrency: 128, Repeat: 3}
		p.Sweep(uniform(40, 2500, 128))
		p.Begin(s, 128, 1024)
		for range 128 {
			p.Done(done(schemas.PhaseWarmup, true))
		}
		clock.add(90 * time.Second)
		for i := range 700 {
			p.Done(done(schemas.PhaseMeasure, i%50 != 0))
		}
		fs := frames(buf.String())
		last := fs[len(fs)-1]
		for _, f := range fs {
			if len(f) >= cols {
				t.Errorf("%d columns: a frame of %d: %q", cols, len(f), f)
			}
		}
		bar := regexp.MustCompile(`\[[= ]{10,}\]`).FindString(last)
		if cols >= 70 && bar == "" {
			t.Errorf("%d columns: no bar of 10 cells: %q", cols, last)
		}
		if cols >= 60 && !strings.Contains(last, "700/1024") {
			t.Errorf("%d columns: no count: %q", cols, last)
		}
	}
}

// Without a terminal a long step still prints a line now and then.
func TestProgressHeartbeat(t *testing.T) {
	var buf syncBuffer
	p := NewProgress(&buf, false).(*progress)
	p.heartbeat = 5 * time.Millisecond
	s := Step{Target: "a", Concurrency: 1, Repeat: 1}
	p.Sweep(uniform(2, 6, 1))
	p.Begin(s, 1, 5)
	p.Done(done(schemas.PhaseWarmup, true))
	p.Done(done(schemas.PhaseMeasure, true))
	p.Done(done(schemas.PhaseMeasure, false))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "benchseal: a c=1 r=1 (step 1 of 2): 2/5 measured, 1 errors (http 1), ") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	p.End(StepResult{Step: s, Warmup: 1, Requests: 2, Succeeded: 1})
	out := buf.String()
	if !strings.Contains(out, "benchseal: a c=1 r=1 (step 1 of 2): 2/5 measured, 1 errors (http 1), ") {
		t.Fatalf("no heartbeat:\n%s", out)
	}
	if strings.Contains(out, "\r") {
		t.Errorf("terminal codes without a terminal:\n%q", out)
	}
	n := strings.Count(out, "\n")
	time.Sleep(30 * time.Millisecond)
	if strings.Count(buf.String(), "\n") != n {
		t.Errorf("heartbeat after End:\n%s", buf.String())
	}
}

// The live p50 and p99 are claims.Percentile's over the measured
// successes so far, warm-ups and failures left out; failures are counted
// by class, the most frequent first.
func TestProgressLiveLatencyAndClasses(t *testing.T) {
	var buf bytes.Buffer
	p, clock := testProgress(&buf, true, 200)
	p.Sweep(uniform(1, 102, 4))
	p.Begin(Step{Target: "a", Concurrency: 4, Repeat: 1}, 1, 101)
	p.Done(&schemas.Record{Phase: schemas.PhaseWarmup, OK: true, EndNs: 9e9}) // 9 s: never counted
	for i := range 98 {
		p.Done(&schemas.Record{Phase: schemas.PhaseMeasure, OK: true, StartNs: 0, EndNs: int64(i+1) * 1e6})
	}
	p.Done(&schemas.Record{Phase: schemas.PhaseMeasure, ErrorClass: schemas.ErrTimeout, EndNs: 30e9})
	p.Done(&schemas.Record{Phase: schemas.PhaseMeasure, ErrorClass: schemas.ErrHTTP, EndNs: 1})
	// The percentiles are sorted out again at most every liveEvery: the
	// first success's until then.
	if fs := frames(buf.String()); !strings.Contains(fs[len(fs)-1], "p50 1ms p99 1ms") {
		t.Errorf("percentiles recomputed within %v: %q", liveEvery, fs[len(fs)-1])
	}
	clock.add(liveEvery)
	p.Done(&schemas.Record{Phase: schemas.PhaseMeasure, ErrorClass: schemas.ErrHTTP, EndNs: 1})
	lat := make([]float64, 98)
	for i := range lat {
		lat[i] = float64(i+1) / 1e3
	}
	want := fmt.Sprintf("101/101 measured 3 errors (http 2, timeout 1) 98.0 req/s p50 %s p99 %s", liveSeconds(claims.Percentile(lat, 50)), liveSeconds(claims.Percentile(lat, 99)))
	fs := frames(buf.String())
	if last := fs[len(fs)-1]; !strings.Contains(last, want) {
		t.Errorf("last frame %q, want %q", last, want)
	}
	for in, want := range map[float64]string{0.0008123: "812µs", 0.0512: "51.2ms", 0.093: "93ms", 1.234: "1.23s", 42: "42s"} {
		if got := liveSeconds(in); got != want {
			t.Errorf("liveSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A step stopped before its measured requests says so instead of "0/0 ok".
func TestProgressStoppedStep(t *testing.T) {
	var buf bytes.Buffer
	p, _ := testProgress(&buf, false, 0)
	s := Step{Target: "a", Concurrency: 4, Repeat: 1}
	p.Sweep(uniform(2, 8, 4))
	p.Begin(s, 4, 4)
	for range 4 {
		p.Done(done(schemas.PhaseWarmup, false))
	}
	p.End(StepResult{Step: s, Warmup: 4, Stopped: true})
	if got := buf.String(); !strings.HasPrefix(got, "benchseal: a c=4 r=1: stopped before its measured requests (step 1 of 2") {
		t.Errorf("final line: %q", got)
	}
}

// A probed target gets one plain line, terminal or not.
func TestProgressProbe(t *testing.T) {
	var buf bytes.Buffer
	pp, ok := NewProgress(&buf, true).(ProbeProgress)
	if !ok {
		t.Fatal("NewProgress's Progress shows no cache probe")
	}
	pp.Probe("a", 33, 34, "no cache effect seen (ratio within noise)")
	if got := buf.String(); !strings.HasSuffix(got, "benchseal: cache probe a: 33/34 ok (16 pairs + 2 warm-ups), no cache effect seen (ratio within noise)\n") {
		t.Errorf("probe line: %q", got)
	}
}

// uniform is a sweep of n steps of requests requests at concurrency c.
func uniform(n, requests, c int) []StepSize {
	out := make([]StepSize, n)
	for i := range out {
		out[i] = StepSize{Concurrency: c, Requests: requests}
	}
	return out
}

// The time left weighs a request at concurrency C as 1/C of one at C=1:
// after a c=1 step of 10 requests in 10 s, a c=10 step of 100 requests
// takes about 10 s more, not 100 s (the demo's first estimate, counted in
// requests, was 2-3 times its whole run).
func TestProgressLeftWeighsConcurrency(t *testing.T) {
	var buf bytes.Buffer
	p, clock := testProgress(&buf, false, 0)
	p.Sweep([]StepSize{{Concurrency: 1, Requests: 10}, {Concurrency: 10, Requests: 100}})
	s := Step{Target: "a", Concurrency: 1, Repeat: 1}
	p.Begin(s, 0, 10)
	for range 10 {
		clock.add(time.Second)
		p.Done(done(schemas.PhaseMeasure, true))
	}
	p.End(StepResult{Step: s, Requests: 10, Succeeded: 10})
	if !strings.Contains(buf.String(), "(step 1 of 2, about 10s left)") {
		t.Errorf("end line: %q", buf.String())
	}
}

// A step cut short says so on its line: "20/20 ok" alone read as a whole
// step of one planned at 60.
func TestProgressShortStep(t *testing.T) {
	var buf bytes.Buffer
	p, _ := testProgress(&buf, false, 0)
	s := Step{Target: "sglang", Concurrency: 1, Repeat: 1}
	p.Sweep(uniform(2, 61, 1))
	p.Begin(s, 1, 60)
	p.End(StepResult{Step: s, Requests: 20, Succeeded: 20, Planned: 60, Interrupted: true})
	if !strings.Contains(buf.String(), "benchseal: sglang c=1 r=1: 20/20 ok 0 errors 0.0 req/s (interrupted: 20 of 60 planned)") {
		t.Errorf("got %q", buf.String())
	}
}
