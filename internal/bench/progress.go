package bench

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Progress shows a run as it goes. Sweep, Begin, End and Warnf are called
// from the runner's goroutine; Done from every worker at once.
type Progress interface {
	Warnf(format string, args ...any)
	// Sweep is called once before the first step with the sweep's steps
	// in schedule order, each with its concurrency and its requests,
	// warm-ups included, so progress can say "step k of N" and how long
	// the sweep has left.
	Sweep(steps []StepSize)
	// Begin starts a step of warmup warm-ups and then measured requests.
	Begin(s Step, warmup, measured int)
	// Done says one request of the step ended, with its record (phase,
	// outcome, error class and times set). It must not keep rec.
	Done(rec *schemas.Record)
	End(r StepResult)
}

// ProbeProgress is a Progress that also shows each target's cache probe
// (an optional interface, so other Progress implementations keep working):
// Probe is called after a target's probe with its successful and sent
// requests and the latencies' verdict.
type ProbeProgress interface {
	Probe(target string, ok, requests int, verdict string)
}

// StepSize is one step of the sweep as Progress.Sweep gets it.
type StepSize struct {
	Concurrency int
	Requests    int // warm-ups included
}

// DefaultHeartbeat is how often progress without a terminal prints a line
// within a step.
const DefaultHeartbeat = 15 * time.Second

// NewProgress writes progress to w (stderr). On a terminal one line is
// redrawn in place, fitted to the terminal's width: the step, its place in
// the sweep, its warm-ups, then a bar of its measured requests, their
// errors by class, the live rate of successes, the p50 and p99 latency of
// the successes so far (claims.Percentile over them, as claims computes
// the step's own) and the sweep's time left. Otherwise the same words in
// a heartbeat line every DefaultHeartbeat within a step:
//
//	benchseal: a c=16 r=1 (step 3 of 8): 96/160 measured, 2 errors (http_503 2), 311.8 req/s, p50 51.2ms, p99 93ms, ~1m22s left
//
// Either way each step ends with one plain line; its counts, like the
// live ones, are of measured requests only (warm-ups are recorded, never
// counted):
//
//	benchseal: a c=16 r=1: 160/160 ok 0 errors 312.4 req/s (step 3 of 8, about 1m20s left)
func NewProgress(w io.Writer, terminal bool) Progress {
	p := &progress{w: w, terminal: terminal, throttle: 100 * time.Millisecond, heartbeat: DefaultHeartbeat, now: time.Now}
	if f, ok := w.(interface{ Fd() uintptr }); ok && terminal {
		p.width = func() int {
			cols, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return cols
		}
	}
	return p
}

type progress struct {
	w         io.Writer
	terminal  bool
	width     func() int // terminal columns; nil or 0: unknown (80)
	throttle  time.Duration
	heartbeat time.Duration
	now       func() time.Time

	mu    sync.Mutex // guards writing to w and the fields below
	steps int        // of the sweep (0: Sweep not called)
	step  int        // 1-based number of the current step
	// work is the sweep's requests, warm-ups included, each counted
	// workUnit/C at concurrency C: a closed loop of C workers sends C at
	// a time, so at one latency a level's request takes 1/C of the time
	// one at a time does (sizes in int64 so that workers add atomically).
	work       int64
	sweepStart time.Time
	s          Step
	warmup     int
	measured   int
	drawn      bool          // a bar is on the terminal's current line
	stop       chan struct{} // ends the heartbeat of the step

	// Counted by the workers.
	swept        atomic.Int64 // work of the sweep done (see work)
	unit         atomic.Int64 // work of one request of the current step
	warmDone     atomic.Int64
	measDone     atomic.Int64
	measOK       atomic.Int64
	measureStart atomic.Int64 // unix ns the measured phase began (0: not yet)
	lastRender   atomic.Int64 // unix ns of the last redraw

	// The measured phase's successes' latencies (seconds) and failures
	// by error class so far, for the live p50/p99 and classes; the
	// percentiles are sorted out again at most every liveEvery, from the
	// latencies then (liveN of them).
	liveMu   sync.Mutex
	lat      []float64
	classes  map[string]int
	liveAt   time.Time
	liveN    int
	p50, p99 string
}

// liveEvery is how often the live p50 and p99 are computed again: each
// time sorts a copy of the step's latencies so far.
const liveEvery = time.Second

func (p *progress) Warnf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "benchseal: warning: "+format+"\n", args...)
}

// workUnit is the work of one request at concurrency 1.
const workUnit = 1 << 20

func (p *progress) Sweep(steps []StepSize) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps, p.work, p.sweepStart = len(steps), 0, p.now()
	for _, s := range steps {
		p.work += int64(s.Requests) * (workUnit / int64(max(s.Concurrency, 1)))
	}
}

func (p *progress) Begin(s Step, warmup, measured int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sweepStart.IsZero() {
		p.sweepStart = p.now()
	}
	if s.Attempt > 1 {
		// A step measured again (attempt.go): the same step of the
		// sweep, and more work than Sweep planned.
		p.work += int64(warmup+measured) * (workUnit / int64(max(s.Concurrency, 1)))
	} else {
		p.step++
	}
	p.s, p.warmup, p.measured = s, warmup, measured
	p.unit.Store(workUnit / int64(max(s.Concurrency, 1)))
	p.warmDone.Store(0)
	p.measDone.Store(0)
	p.measOK.Store(0)
	p.measureStart.Store(0)
	p.liveMu.Lock()
	p.lat, p.classes, p.liveN, p.p50, p.p99 = make([]float64, 0, measured), map[string]int{}, 0, "", ""
	p.liveMu.Unlock()
	if warmup == 0 {
		p.measureStart.Store(p.now().UnixNano())
	}
	if p.terminal {
		p.render()
		return
	}
	if p.heartbeat > 0 {
		p.stop = make(chan struct{})
		go p.beat(p.stop)
	}
}

// beat prints a line every heartbeat until stop is closed, so a log
// without a terminal shows a long step is alive.
func (p *progress) beat(stop chan struct{}) {
	t := time.NewTicker(p.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			select {
			case <-stop:
			default:
				fmt.Fprintf(p.w, "benchseal: %s%s: %s\n", stepName(p.s), p.place(), strings.Join(p.status(wordsFull), ", "))
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) Done(rec *schemas.Record) {
	p.swept.Add(p.unit.Load())
	if rec.Phase == schemas.PhaseWarmup {
		if int(p.warmDone.Add(1)) == p.warmup {
			// The measured phase starts when the last warm-up ends.
			p.measureStart.Store(p.now().UnixNano())
		}
	} else {
		p.liveMu.Lock()
		if rec.OK {
			p.lat = append(p.lat, float64(rec.EndNs-rec.StartNs)/1e9)
		} else {
			p.classes[cmp.Or(rec.ErrorClass, "unclassified")]++
		}
		p.liveMu.Unlock()
		p.measDone.Add(1)
		if rec.OK {
			p.measOK.Add(1)
		}
	}
	if !p.terminal {
		return
	}
	now := p.now().UnixNano()
	last := p.lastRender.Load()
	if now-last < p.throttle.Nanoseconds() || !p.lastRender.CompareAndSwap(last, now) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.render()
}

func (p *progress) End(r StepResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	p.clear()
	if r.Requests == 0 && (r.Stopped || r.Interrupted) {
		fmt.Fprintf(p.w, "benchseal: %s: stopped before its measured requests%s\n", stepName(r.Step), p.endNote())
		return
	}
	failed := r.Requests - r.Succeeded
	short := ""
	if r.Planned > r.Requests {
		// "20/20 ok" alone read as a whole step of a step planned at 60.
		why := "interrupted"
		if r.Stopped {
			why = "stopped"
		}
		short = fmt.Sprintf(" (%s: %d of %d planned)", why, r.Requests, r.Planned)
	}
	fmt.Fprintf(p.w, "benchseal: %s: %d/%d ok %d errors %.1f req/s%s%s\n", stepName(r.Step), r.Succeeded, r.Requests, failed, r.ReqPerS(), short, p.endNote())
}

// Probe prints one line per probed target:
//
//	benchseal: cache probe a: 34/34 ok (16 pairs + 2 warm-ups), caches identical audio (repeats 64.3 times faster)
//
// in the words of run --help and claims.json's probes (whose repeats and
// variants count the pairs' halves).
func (p *progress) Probe(target string, ok, requests int, verdict string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "benchseal: cache probe %s: %d/%d ok (%d pairs + %d warm-ups), %s\n", target, ok, requests, max(requests-claims.ProbeWarmup, 0)/2, claims.ProbeWarmup, verdict)
}

// place is " (step k of N)", or "" before Sweep.
func (p *progress) place() string {
	if p.steps == 0 {
		return ""
	}
	return fmt.Sprintf(" (step %d of %d)", p.step, p.steps)
}

// endNote is the step's place and the sweep's time left, for End's line.
func (p *progress) endNote() string {
	if p.steps == 0 {
		return ""
	}
	note := fmt.Sprintf(" (step %d of %d", p.step, p.steps)
	if left, ok := p.left(); ok && p.step < p.steps {
		note += ", about " + left + " left"
	}
	return note + ")"
}

// left estimates the sweep's time left from its pace so far, in work:
// requests weighted 1/C (see work), so that the c=1 steps a sweep starts
// with, one request at a time, do not make the c=8 and c=32 steps after
// them look 8 and 32 times longer than they take. Counted in requests,
// the demo's first estimate was 2-3 times its whole run. A server
// that saturates below the top level still takes longer than this says
// there; the estimate catches up as those steps run.
func (p *progress) left() (string, bool) {
	done := p.swept.Load()
	if p.work == 0 || done == 0 || p.sweepStart.IsZero() {
		return "", false
	}
	el := p.now().Sub(p.sweepStart)
	rest := time.Duration(float64(el) * float64(max(p.work-done, 0)) / float64(done))
	return roughDuration(rest), true
}

// roughDuration words d as precisely as a time left needs: 2h59m, 4m10s,
// 12s, 0.4s.
func roughDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// Widths of status: the full words, short ones, short ones without the
// latencies (a narrow terminal keeps its bar before its p50).
const (
	wordsFull = iota
	wordsShort
	wordsNarrow
)

// status words where the step is: its warm-ups, or its measured requests,
// their errors, the rate of successes, the latencies so far and the
// sweep's time left, in the words of width (wordsFull...).
func (p *progress) status(width int) []string {
	short := width != wordsFull
	wd := int(p.warmDone.Load())
	if wd < p.warmup {
		return []string{fmt.Sprintf("warm-up %d/%d", wd, p.warmup)}
	}
	done, ok := p.measDone.Load(), p.measOK.Load()
	parts := []string{fmt.Sprintf("%d/%d measured", done, p.measured)}
	if short {
		parts[0] = fmt.Sprintf("%d/%d", done, p.measured)
	}
	p50, p99, classes := p.live()
	if e := done - ok; e > 0 {
		if short {
			parts = append(parts, fmt.Sprintf("%d err", e))
		} else {
			parts = append(parts, fmt.Sprintf("%d errors (%s)", e, classes))
		}
	}
	if start := p.measureStart.Load(); start > 0 {
		if el := p.now().UnixNano() - start; el > 0 {
			unit := " req/s"
			if short {
				unit = "/s"
			}
			parts = append(parts, fmt.Sprintf("%.1f%s", float64(ok)/(float64(el)/1e9), unit))
		}
	}
	switch {
	case p50 == "" || width == wordsNarrow:
	case short:
		parts = append(parts, "p50 "+p50)
	default:
		parts = append(parts, "p50 "+p50, "p99 "+p99)
	}
	if left, ok := p.left(); ok {
		if short {
			parts = append(parts, left+" left")
		} else {
			parts = append(parts, "~"+left+" left")
		}
	}
	return parts
}

// live is the p50 and p99 of the measured successes' latencies so far
// ("" before the first) and the failures by class, most first: "http_503
// 2, timeout 1".
func (p *progress) live() (p50, p99, classes string) {
	p.liveMu.Lock()
	var lat []float64 // to sort again, outside the lock the workers take
	if now := p.now(); len(p.lat) != p.liveN && (p.liveN == 0 || now.Sub(p.liveAt) >= liveEvery) {
		lat, p.liveAt, p.liveN = slices.Clone(p.lat), now, len(p.lat)
	}
	words := make([]string, 0, len(p.classes))
	for _, name := range slices.SortedFunc(maps.Keys(p.classes), func(a, b string) int {
		return cmp.Or(p.classes[b]-p.classes[a], strings.Compare(a, b))
	}) {
		words = append(words, fmt.Sprintf("%s %d", name, p.classes[name]))
	}
	p.liveMu.Unlock()
	if lat != nil {
		slices.Sort(lat)
		p50, p99 = liveSeconds(claims.Percentile(lat, 50)), liveSeconds(claims.Percentile(lat, 99))
		p.liveMu.Lock()
		p.p50, p.p99 = p50, p99
		p.liveMu.Unlock()
		return p50, p99, strings.Join(words, ", ")
	}
	p.liveMu.Lock()
	defer p.liveMu.Unlock()
	return p.p50, p.p99, strings.Join(words, ", ")
}

// liveSeconds words a latency with three significant digits: 812µs,
// 51.2ms, 1.23s.
func liveSeconds(s float64) string {
	d := time.Duration(s * 1e9)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3gs", s)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3gms", s*1e3)
	default:
		return fmt.Sprintf("%.3gµs", s*1e6)
	}
}

// render redraws the terminal's line (under mu): the text first, a bar of
// the measured requests in whatever room is left, never wider than the
// terminal (a wrapped line would scroll instead of redrawing).
func (p *progress) render() {
	cols := 80
	if p.width != nil {
		if c := p.width(); c > 0 {
			cols = c
		}
	}
	head := stepName(p.s)
	if p.steps > 0 {
		head = fmt.Sprintf("[%d/%d] %s", p.step, p.steps, head)
	}
	// The full words if they leave room for a bar, else the short ones;
	// the bar only where it can be at least minBar wide.
	const minBar, maxBar = 10, 40
	status := strings.Join(p.status(wordsFull), " ")
	for width := wordsShort; width <= wordsNarrow && cols-1-len(head)-len(status)-4 < minBar; width++ {
		status = strings.Join(p.status(width), " ")
	}
	text := head + " " + status
	if room := cols - 1 - len(text) - 3; room >= minBar && int(p.warmDone.Load()) >= p.warmup {
		n := min(room, maxBar)
		filled := 0
		if p.measured > 0 {
			filled = int(p.measDone.Load()) * n / p.measured
		}
		text = head + " [" + strings.Repeat("=", filled) + strings.Repeat(" ", n-filled) + "] " + status
	}
	if len(text) > cols-1 {
		text = text[:cols-1]
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", text)
	p.drawn = true
}

// clear removes the bar (under mu) before a line is printed.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
