package bench

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/benchseal/benchseal/schemas"
)

// Progress shows a run as it goes. Begin, End and Warnf are called from the
// runner's goroutine; Done from every worker at once.
type Progress interface {
	Warnf(format string, args ...any)
	Begin(s Step, total int) // total: warm-ups + measured requests of the step
	// Done says one request of the step ended; phase is schemas.PhaseWarmup
	// or schemas.PhaseMeasure.
	Done(phase string, ok bool)
	End(r StepResult)
}

// NewProgress writes progress to w (stderr): a bar per step on a terminal,
// one plain line per step otherwise. The bar's error count, like the line,
// counts failed measured requests only:
//
//	benchseal: a c=16 r=1: 160/160 ok 0 errors 312.4 req/s
func NewProgress(w io.Writer, terminal bool) Progress {
	return &progress{w: w, terminal: terminal, throttle: 100 * time.Millisecond}
}

type progress struct {
	w        io.Writer
	terminal bool
	throttle time.Duration // least time between two renders of the bar
	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	desc     string
	errs     atomic.Int64
}

func (p *progress) Warnf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintf(p.w, "benchseal: warning: "+format+"\n", args...)
}

func (p *progress) Begin(s Step, total int) {
	p.errs.Store(0)
	if !p.terminal {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = stepName(s)
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(stepName(s)),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionThrottle(p.throttle),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)
}

func (p *progress) Done(phase string, ok bool) {
	// Only measured failures are errors of the step, as in End's line and
	// in claims; a failed warm-up is recorded but never counted.
	failed := !ok && phase == schemas.PhaseMeasure
	if failed {
		p.errs.Add(1)
	}
	if !p.terminal {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		if failed {
			p.bar.Describe(fmt.Sprintf("%s (%d errors)", p.desc, p.errs.Load()))
		}
		p.bar.Add(1)
	}
}

func (p *progress) End(r StepResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
	failed := r.Requests - r.Succeeded
	fmt.Fprintf(p.w, "benchseal: %s: %d/%d ok %d errors %.1f req/s\n", stepName(r.Step), r.Succeeded, r.Requests, failed, r.ReqPerS())
}
