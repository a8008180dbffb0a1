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
		var rs []schemas.Record
		for _, r := range recs {
			if r.Phase == ph {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		byWorker := map[int][]schemas.Record{}
		for _, r := range rs {
			byWorker[r.Worker] = append(byWorker[r.Worker], r)
		}
		var stalled int64
		var first string
		for _, w := range slices.Sorted(maps.Keys(byWorker)) {
			ws := byWorker[w]
			slices.SortFunc(ws, func(a, b schemas.Record) int { return cmpNs(a.StartNs, b.StartNs) })
			for j := 1; j < len(ws); j++ {
				if gap := ws[j].StartNs - ws[j-1].EndNs; gap > int64(DispatchTolerance) {
					stalled += gap
					if first == "" {
						first = fmt.Sprintf("worker %d sent seq %d %.1f ms after its seq %d ended (%s phase)", w, ws[j].Seq, float64(gap)/1e6, ws[j-1].Seq, ph)
					}
				}
			}
		}
		idle, idleNs := IdleWorker(rs, DispatchTolerance)
		stalled += idleNs
		if first == "" && idle == "" {
			continue
		}
		firstStart, lastEnd := rs[0].StartNs, rs[0].EndNs
		for _, r := range rs {
			firstStart, lastEnd = min(firstStart, r.StartNs), max(lastEnd, r.EndNs)
		}
		s := PhaseStall{Phase: ph, First: first, Share: float64(stalled) / float64(int64(conc)*max(lastEnd-firstStart, 1))}
		if first == "" {
			s.First, s.Idle = idle+fmt.Sprintf(" (%s phase)", ph), true
		}
		out = append(out, s)
	}
	return out
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
	starts := make([]schemas.Record, len(recs))
	copy(starts, recs)
	slices.SortFunc(starts, func(a, b schemas.Record) int { return cmpNs(a.StartNs, b.StartNs) })
	byWorker := map[int][]schemas.Record{}
	for _, r := range starts {
		byWorker[r.Worker] = append(byWorker[r.Worker], r)
	}
	tol := int64(tolerance)
	for _, w := range slices.Sorted(maps.Keys(byWorker)) {
		rs := byWorker[w]
		for j, r := range rs {
			// Idle from r's end to w's next start; after its last request,
			// to the end (any later start by another worker was work left).
			until := int64(math.MaxInt64)
			if j+1 < len(rs) {
				until = rs[j+1].StartNs
			}
			from := r.EndNs + tol
			k, _ := slices.BinarySearchFunc(starts, from+1, func(x schemas.Record, t int64) int { return cmpNs(x.StartNs, t) })
			if k < len(starts) && starts[k].StartNs < until-tol && starts[k].Worker != w {
				o := starts[k]
				return fmt.Sprintf("worker %d was idle from %d ns (its seq %d ended) while worker %d started seq %d at %d ns", w, r.EndNs, r.Seq, o.Worker, o.Seq, o.StartNs), o.StartNs - r.EndNs
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
