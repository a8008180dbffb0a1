package claims

import (
	"slices"

	"github.com/benchseal/benchseal/schemas"
)

// OpenLoop fills an open-loop repeat's figures into m from its records
// (the measured ones; see schemas.Metrics): the offered rate, the rate
// the requests were sent at, the send lateness and the latency from the
// planned arrival, percentiles exact (Percentile). Records without
// planned_ns (none in a run benchseal made) count in the send rate only.
// The growth figures whether the server kept up rests on are keepUp's.
func OpenLoop(m *schemas.Metrics, recs []schemas.Record, rate float64) {
	m.OfferedRate = ptr(rate)
	var starts []int64
	var late, arrival []float64
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		starts = append(starts, r.StartNs)
		if r.PlannedNs == 0 {
			continue
		}
		late = append(late, seconds(r.StartNs-r.PlannedNs))
		if r.OK {
			arrival = append(arrival, seconds(r.EndNs-r.PlannedNs))
		}
	}
	if len(starts) >= 2 {
		lo, hi := slices.Min(starts), slices.Max(starts)
		if hi > lo {
			m.SendRate = ptr(float64(len(starts)-1) / seconds(hi-lo))
		}
	}
	if len(late) > 0 {
		slices.Sort(late)
		m.LatenessP50S, m.LatenessP99S = ptr(Percentile(late, 50)), ptr(Percentile(late, 99))
	}
	if len(arrival) > 0 {
		slices.Sort(arrival)
		m.ArrivalLatencyP50S, m.ArrivalLatencyP99S = ptr(Percentile(arrival, 50)), ptr(Percentile(arrival, 99))
	}
	keepUp(m, recs)
}

// Goodput is the measured successes meeting every limit of slo per second
// of window (seconds; nil when it is 0), each latency from the request's
// arrival: its planned_ns when it has one (an open loop), else its start.
func Goodput(recs []schemas.Record, slo schemas.SLO, window float64) *float64 {
	if window <= 0 {
		return nil
	}
	n := 0
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure || !r.OK {
			continue
		}
		from := r.StartNs
		if r.PlannedNs != 0 {
			from = r.PlannedNs
		}
		if slo.E2ES != nil && seconds(r.EndNs-from) > *slo.E2ES {
			continue
		}
		if slo.TTFBS != nil && (r.FirstByteNs == 0 || seconds(r.FirstByteNs-from) > *slo.TTFBS) {
			continue
		}
		n++
	}
	return ptr(float64(n) / window)
}
