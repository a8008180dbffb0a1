package bench

import (
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/schemas"
)

// The open loop (Plan.Rates): each phase of a step sends its requests at
// the planned offsets internal/schedule derives from the run's seed, the
// level's rate, the burstiness, the repeat and the phase's request count,
// measured from the phase's start (with Plan.Ramp, the warm-up phase's
// from the ramp: schedule.RampOffsets; with Plan.Fixed, the measured
// phase's are the trace's). The dispatcher sleeps until each
// request's absolute deadline (start + offset, never a per-gap sleep,
// so lateness does not accumulate; a Go timer to coarseMargin before it,
// nanosleep(2) for the rest), then takes a slot of the
// MaxConcurrency semaphore (sleep-then-gate, as AIPerf does); a request
// that waited for a slot is sent late, and the deadlines after it keep
// their places (no catch-up beyond the slots that free). Each record
// carries its planned_ns so that lateness and latency from the planned
// arrival follow from it.

func (p Plan) normalizeOpen() error {
	seen := map[float64]bool{}
	for _, r := range p.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return planErrorf("request rate %v: must be a positive, finite number of requests per second", r)
		}
		if seen[r] {
			return planErrorf("request rate %v is listed twice", r)
		}
		seen[r] = true
	}
	if p.Burstiness < 0 || math.IsNaN(p.Burstiness) {
		return planErrorf("burstiness %v: must be positive (1 Poisson, inf constant)", p.Burstiness)
	}
	if p.MaxConcurrency < 0 {
		return planErrorf("max concurrency %d: must be at least 0 (0: no bound)", p.MaxConcurrency)
	}
	return nil
}

// FormatBurstiness is run.json's text of a burstiness: "inf" or the
// shortest decimal that reads back the same float64.
func FormatBurstiness(k float64) string {
	if math.IsInf(k, 1) {
		return "inf"
	}
	return strconv.FormatFloat(k, 'g', -1, 64)
}

// coarseMargin is how long before a deadline the dispatcher's Go timer
// wakes it: the runtime's timers wake an idle process up to 1 ms late
// (epoll_wait counts milliseconds), so the last stretch is slept in
// nanosleep(2) (sleepFine), which wakes within the kernel's timer slack.
// A dispatcher in nanosleep cannot see an interrupt: it sees it at most
// coarseMargin later.
const coarseMargin = 2 * time.Millisecond

// openPhase sends jobs [from, to) at their planned times and writes each
// record as it ends; it returns when every request it sent has ended.
func (st *stepRun) openPhase(name string, from, to int) {
	n := to - from
	if n <= 0 {
		return
	}
	p := st.r.plan
	sp := schedule.Params{Seed: p.Seed, Rate: p.Rates[st.s.Level], Burstiness: p.Burstiness, Repeat: st.s.Repeat}
	offs, err := schedule.Offsets(sp, n)
	switch {
	case p.Ramp != nil && name == schemas.PhaseWarmup:
		offs, err = schedule.RampOffsets(sp, *p.Ramp, n)
	case p.Fixed != nil && name == schemas.PhaseMeasure:
		offs = p.Fixed // normalize held its count to the phase's
	}
	if err != nil { // normalize checked every parameter
		panic(err)
	}
	slots := make(chan *worker, len(st.workers))
	for _, wk := range st.workers {
		slots <- wk
	}
	anchor := st.r.d.Anchor
	start := time.Now()
	startNs := start.Sub(anchor).Nanoseconds()
	timer := time.NewTimer(0)
	<-timer.C
	var wg sync.WaitGroup
	done := st.runCtx.Done()
	for i := range n {
		deadline := start.Add(offs[i])
		if d := time.Until(deadline); d > coarseMargin {
			timer.Reset(d - coarseMargin)
			select {
			case <-timer.C:
			case <-done:
				timer.Stop()
				wg.Wait()
				return
			}
		}
		if d := time.Until(deadline); d > 0 {
			// The request goroutine started last runs first (it may be
			// waiting on this P), then the last stretch in nanosleep.
			runtime.Gosched()
			if d = time.Until(deadline); d > 0 {
				sleepFine(d)
			}
		}
		var wk *worker
		select {
		case wk = <-slots:
		case <-done:
			wg.Wait()
			return
		}
		if st.runCtx.Err() != nil {
			break
		}
		seq := from + i
		planned := startNs + offs[i].Nanoseconds()
		wg.Go(func() {
			st.recs[seq].PlannedNs = planned
			st.send(wk, seq, &st.jobs[seq], name)
			slots <- wk
		})
	}
	wg.Wait()
}

// openWorkers is the size of an open-loop step's worker pool: the bound
// on requests in flight, or every request of the step when none.
func (p Plan) openWorkers(li, repeat int) int {
	if p.MaxConcurrency > 0 {
		return p.MaxConcurrency
	}
	return max(1, p.warmupAt(li, repeat)+p.Requests[li])
}

// OpenRequests is the measured requests per level that a duration asks
// for in an open loop: level i's rate × its duration (durations holds one
// for every level, or one per level), rounded to the nearest whole
// request and at least 1. The schedule lands the last arrival at n/rate,
// so the level's arrivals span the duration to within half a gap.
func OpenRequests(rates []float64, durations []time.Duration) []int {
	out := make([]int, len(rates))
	for i, r := range rates {
		d := durations[min(i, len(durations)-1)]
		out[i] = max(1, int(math.Round(r*d.Seconds())))
	}
	return out
}

func (p Plan) normalizeFixed() error {
	if p.Fixed == nil {
		return nil
	}
	switch {
	case p.Ramp != nil || p.Search != nil:
		return planErrorf("a fixed schedule sets the level's sends: no warm-up ramp or rate search with it")
	case len(p.Rates) != 1 || p.Rates[0] != schedule.FixedRate(p.Fixed):
		return planErrorf("a fixed schedule is one level at its mean rate (%v req/s)", schedule.FixedRate(p.Fixed))
	case len(p.Requests) != 1 || p.Requests[0] != len(p.Fixed):
		return planErrorf("a fixed schedule of %d sends measures %d requests", len(p.Fixed), len(p.Fixed))
	}
	return nil
}
