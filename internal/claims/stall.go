package claims

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// The closed loop's stall rule: the one rule verify's check 7 holds a
// step's records to and the runner applies to each step it measured
// (internal/bench re-measures a step that breaks it), so that the two can
// never disagree about a step.
//
// In each phase (warm-up, measure) of a closed-loop step, a stall is
//
//   - a worker's gap between the end of one of its requests and the start
//     of its next, when longer than DispatchTolerance;
//   - the time a worker that had finished a request stayed idle while
//     another worker started one it was free for (IdleWorker, with
//     DispatchTolerance), the first such found.
//
// The stall share is their sum over C times the phase's window (first
// start to last end). Above MaxStallShare the loop was open: the records
// do not show a closed loop of C workers.

// DispatchTolerance is the longest a worker may take between the end of
// one request and the start of its next before a gap is a stall.
// benchseal's workers take 0.05-0.07 ms (median; about 1 ms at most) on a
// busy machine; the margin covers scheduler and GC pauses under the race
// detector, and a real transcription takes far longer, so a request
// dropped from a worker's sequence still shows.
const DispatchTolerance = 50 * time.Millisecond

// MaxStallShare is the share of a phase's worker time (C times its
// window) that stalls may add up to before the loop is called open. Below
// it a stall is a warning, with its length: a busy client machine (GC,
// the scheduler, the race detector on a shared 2-core box) pauses a
// worker now and then — measured here at 64-118 ms, once or twice in a
// step, under a load average of 15 — and the load then dipped below C for
// that long. A records file edited to drop or delay a worker's requests
// leaves far more (the doctored corpus's 200 ms shift: about 17 %).
const MaxStallShare = 0.05

// MaxRemeasures is how many times the runner measures a step again at
// most when an attempt breaks the rule (internal/bench); verify holds a
// step to at most 1 + MaxRemeasures attempts.
const MaxRemeasures = 2

// PhaseStall is what the stall rule found in one phase of a step.
type PhaseStall struct {
	Phase string // schemas.PhaseWarmup or schemas.PhaseMeasure
	// Share is the stalls' sum over C times the phase's window.
	Share float64
	// First describes the first stall found: a worker's gap ("worker 0
	// sent seq 9 158.0 ms after its seq 7 ended (measure phase)") or, when
	// there is none, an idle worker (IdleWorker's words and the phase).
	First string
	// Idle is true when First is an idle worker, not a gap.
	Idle bool
}

// Open says the phase's stalls exceed MaxStallShare: the loop was open.
func (s PhaseStall) Open() bool { return s.Share > MaxStallShare }

// Stalls applies the stall rule to each phase of a closed-loop step's
// planned records (retried warm-ups left out) at concurrency conc; it
// returns one PhaseStall per phase that has a stall, warm-ups first.
func Stalls(recs []schemas.Record, conc int) []PhaseStall {
	var out []PhaseStall
	for _, ph := range []string{schemas.PhaseWarmup, schemas.PhaseMeasure} {
		rs := spansOf(recs, ph)
		if len(rs) == 0 {
			continue
		}
		var stalled int64
		var first string
		for w, ws := range byWorker(rs) {
			slices.SortFunc(ws, func(a, b span) int { return cmpNs(a.start, b.start) })
			for j := 1; j < len(ws); j++ {
				if gap := ws[j].start - ws[j-1].end; gap > int64(DispatchTolerance) {
					stalled += gap
					if first == "" {
						first = fmt.Sprintf("worker %d sent seq %d %.1f ms after its seq %d ended (%s phase)", w, ws[j].seq, float64(gap)/1e6, ws[j-1].seq, ph)
					}
				}
			}
		}
		idle, idleNs := idleWorker(rs, DispatchTolerance)
		stalled += idleNs
		if first == "" && idle == "" {
			continue
		}
		firstStart, lastEnd := rs[0].start, rs[0].end
		for _, r := range rs {
			firstStart, lastEnd = min(firstStart, r.start), max(lastEnd, r.end)
		}
		s := PhaseStall{Phase: ph, First: first, Share: float64(stalled) / float64(int64(conc)*max(lastEnd-firstStart, 1))}
		if first == "" {
			s.First, s.Idle = idle+fmt.Sprintf(" (%s phase)", ph), true
		}
		out = append(out, s)
	}
	return out
}

// span is what the stall rule reads of a record: a tenth of its size, so
// that sorting a step's requests moves little.
type span struct {
	worker, seq int
	start, end  int64
}

// spansOf is the spans of recs' records of phase ph (every record when ph
// is ""), in recs' order.
func spansOf(recs []schemas.Record, ph string) []span {
	out := make([]span, 0, len(recs))
	for i := range recs {
		if r := &recs[i]; ph == "" || r.Phase == ph {
			out = append(out, span{r.Worker, r.Seq, r.StartNs, r.EndNs})
		}
	}
	return out
}

// byWorker yields each worker's spans, in rs' order, by ascending worker.
func byWorker(rs []span) func(yield func(int, []span) bool) {
	return func(yield func(int, []span) bool) {
		m := map[int][]span{}
		for _, r := range rs {
			m[r.worker] = append(m[r.worker], r)
		}
		for _, w := range slices.Sorted(maps.Keys(m)) {
			if !yield(w, m[w]) {
				return
			}
		}
	}
}

// WorstStall is the phase of Stalls with the largest share; ok is false
// when no phase stalled.
func WorstStall(recs []schemas.Record, conc int) (worst PhaseStall, ok bool) {
	for _, s := range Stalls(recs, conc) {
		if !ok || s.Share > worst.Share {
			worst, ok = s, true
		}
	}
	return worst, ok
}

// IdleWorker looks for a worker that finished a request and then stayed
// idle (for longer than tolerance on both sides) while another worker
// started a request. It describes the first it finds, with how long the
// worker had been idle then, or returns "", 0. A worker's wait for its
// first request is not idling: workers start one after another.
func IdleWorker(recs []schemas.Record, tolerance time.Duration) (string, int64) {
	return idleWorker(spansOf(recs, ""), tolerance)
}

func idleWorker(rs []span, tolerance time.Duration) (string, int64) {
	starts := slices.Clone(rs)
	slices.SortFunc(starts, func(a, b span) int { return cmpNs(a.start, b.start) })
	tol := int64(tolerance)
	for w, ws := range byWorker(starts) {
		for j, r := range ws {
			// Idle from r's end to w's next start; after its last request,
			// to the end (any later start by another worker was work left).
			until := int64(math.MaxInt64)
			if j+1 < len(ws) {
				until = ws[j+1].start
			}
			from := r.end + tol
			k, _ := slices.BinarySearchFunc(starts, from+1, func(x span, t int64) int { return cmpNs(x.start, t) })
			if k < len(starts) && starts[k].start < until-tol && starts[k].worker != w {
				o := starts[k]
				return fmt.Sprintf("worker %d was idle from %d ns (its seq %d ended) while worker %d started seq %d at %d ns", w, r.end, r.seq, o.worker, o.seq, o.start), o.start - r.end
			}
		}
	}
	return "", 0
}

func cmpNs(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
