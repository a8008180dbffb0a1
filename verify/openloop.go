package verify

import (
	"fmt"
	"slices"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	arrivals "github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/schemas"
)

// KindSchedule is an open-loop request whose planned send time is not
// the one its schedule re-derives from the seed and run.json (shifted,
// reordered, missing), or a request sent before it: FAIL.
const KindSchedule Kind = "schedule"

// KindLate is an open-loop request sent later than LatenessBound after
// its planned time: the client (or its --max-concurrency gate) did not
// offer the load as scheduled. WARN, naming how late.
const KindLate Kind = "late-send"

// LatenessBound is how long after its planned time check 7 lets an
// open-loop request be sent before it WARNs: a loaded 2-core client
// sends at p99 within ~2.5 ms (internal/bench's TestOpenLoopFollowsSchedule);
// 10 ms keeps a scheduler pause from counting and still names a client
// that falls behind, or a gate that held requests back.
const LatenessBound = 10 * time.Millisecond

// openStep is what check 7 holds an open-loop step to.
type openStep struct {
	seed  uint64
	proto schemas.Protocol
	level int // 0-based
}

// workers is the step's worker pool: the bound on requests in flight, or
// one per request of the step.
func (o *openStep) workers(warmup, requests int) int {
	if o.proto.MaxConcurrency > 0 {
		return o.proto.MaxConcurrency
	}
	return max(1, warmup+requests)
}

// checkOpenSchedule re-derives each phase's planned offsets (a warm-up
// ramp's for the warm-ups of a run with one, whose count must be the
// ramp's; a fixed schedule's, run.json's, for the measured requests, whose
// count and mean rate must be the level's) and holds every record to them: the phase's start is the first record's planned_ns less
// its offset, and every other record's planned_ns must be that start plus
// its own offset (within arrivals.Tolerance), which a shifted, reordered
// or renumbered request breaks. No request is sent before its planned
// time; one sent more than LatenessBound after it is a WARN. planned
// holds the step's records less its retried warm-ups (never scheduled).
//
// What it cannot see: the phase's start is read from the records, so
// every planned_ns of a phase moved later by the same amount still fits
// the schedule. Since no request may be sent before its planned time, such
// a move hides at most the least late request's lateness.
func checkOpenSchedule(c *Check, f string, o *openStep, repeat, warmup, requests int, planned []schemas.Record) {
	sp, err := arrivals.FromProtocol(o.seed, o.proto, o.level, repeat)
	if err != nil {
		c.add(Finding{Status: Fail, Kind: KindSchedule, Path: "run.json", Reason: fmt.Sprintf("the open-loop schedule of level %d cannot be derived: %v", o.level+1, err)})
		return
	}
	ramp, err := arrivals.RampFromProtocol(o.proto)
	if err != nil {
		c.add(Finding{Status: Fail, Kind: KindSchedule, Path: "run.json", Reason: fmt.Sprintf("the warm-up ramp cannot be derived: %v", err)})
		return
	}
	var fixed []time.Duration
	if fs := o.proto.FixedSchedule; fs != nil {
		fixed = arrivals.Durations(fs.OffsetsNs)
		if requests != len(fixed) || sp.Rate != arrivals.FixedRate(fixed) || !slices.IsSorted(fixed) {
			c.add(Finding{Status: Fail, Kind: KindSchedule, Path: "run.json", Reason: fmt.Sprintf("the fixed schedule's %d offsets (mean %v req/s, in order: %v) are not the level's %d measured requests at %v req/s", len(fixed), arrivals.FixedRate(fixed), slices.IsSorted(fixed), requests, sp.Rate)})
			return
		}
	}
	if ramp != nil && warmup > 0 && warmup != ramp.Requests(sp.Rate) {
		c.add(Finding{Status: Fail, Kind: KindSchedule, Path: f, Reason: fmt.Sprintf("%d warm-ups, but the %s ramp from %v to %v req/s over %v expects %d", warmup, ramp.Strategy, ramp.Start, sp.Rate, ramp.Duration, ramp.Requests(sp.Rate))})
	}
	var late []int64
	var worst schemas.Record
	for _, ph := range []struct {
		name    string
		from, n int
	}{{schemas.PhaseWarmup, 0, warmup}, {schemas.PhaseMeasure, warmup, requests}} {
		var rs []schemas.Record
		for _, r := range planned {
			if r.Phase == ph.name {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 || ph.n == 0 {
			continue
		}
		offs, err := arrivals.Offsets(sp, ph.n)
		switch {
		case ramp != nil && ph.name == schemas.PhaseWarmup:
			offs, err = arrivals.RampOffsets(sp, *ramp, ph.n)
		case fixed != nil && ph.name == schemas.PhaseMeasure:
			offs = fixed
		}
		if err != nil {
			c.failf(f, err, "the schedule of its %s phase cannot be derived", ph.name)
			return
		}
		slices.SortFunc(rs, func(a, b schemas.Record) int { return a.Seq - b.Seq })
		var start int64
		for i, r := range rs {
			k := r.Seq - ph.from
			if k < 0 || k >= ph.n {
				continue // checkStep FAILs the seq
			}
			if r.PlannedNs == 0 {
				c.add(Finding{Status: Fail, Kind: KindSchedule, Path: f, Reason: fmt.Sprintf("%s seq %d has no planned_ns: every request of an open-loop run is scheduled", ph.name, r.Seq)})
				continue
			}
			if i == 0 {
				start = r.PlannedNs - offs[k].Nanoseconds()
			}
			if d := r.PlannedNs - start - offs[k].Nanoseconds(); d > arrivals.Tolerance.Nanoseconds() || d < -arrivals.Tolerance.Nanoseconds() {
				c.add(Finding{Status: Fail, Kind: KindSchedule, Path: f, Reason: fmt.Sprintf("%s seq %d planned %s after its phase's start, the schedule (seed %d, %v req/s, burstiness %s, repeat %d, %d requests) derives %s: a request shifted, reordered or missing",
					ph.name, r.Seq, msec(r.PlannedNs-start), o.seed, sp.Rate, o.proto.Burstiness, repeat, ph.n, msec(offs[k].Nanoseconds()))})
			}
			if r.StartNs < r.PlannedNs {
				c.add(Finding{Status: Fail, Kind: KindSchedule, Path: f, Reason: fmt.Sprintf("%s seq %d sent %s before its planned time: an open loop never sends early", ph.name, r.Seq, msec(r.PlannedNs-r.StartNs))})
			}
			l := r.StartNs - r.PlannedNs
			late = append(late, l)
			if l > worst.StartNs-worst.PlannedNs {
				worst = r
			}
		}
	}
	if len(late) == 0 {
		return
	}
	slices.Sort(late)
	over := len(late) - sort64(late, LatenessBound.Nanoseconds())
	if over == 0 {
		return
	}
	why := "the client fell behind its schedule"
	if o.proto.MaxConcurrency > 0 {
		why = fmt.Sprintf("the client fell behind, or requests waited for one of the %d slots of max_concurrency (the server did not keep up)", o.proto.MaxConcurrency)
	}
	c.add(Finding{Status: Warn, Kind: KindLate, Path: f, Reason: fmt.Sprintf("%d of %d requests sent more than %s after their planned time (lateness p50 %s, p99 %s, worst %s at %s seq %d): %s; the offered rate was not offered as scheduled",
		over, len(late), LatenessBound, msec(pct(late, 50)), msec(pct(late, 99)), msec(worst.StartNs-worst.PlannedNs), worst.Phase, worst.Seq, why)})
}

// sort64 is how many of sorted v are at most x.
func sort64(v []int64, x int64) int {
	n, _ := slices.BinarySearch(v, x+1)
	return n
}

func pct(sorted []int64, q float64) int64 {
	fs := make([]float64, len(sorted))
	for i, v := range sorted {
		fs[i] = float64(v)
	}
	return int64(claims.Percentile(fs, q))
}

func msec(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }
