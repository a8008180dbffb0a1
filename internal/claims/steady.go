package claims

import (
	"cmp"
	"math"
	"slices"

	"github.com/benchseal/benchseal/schemas"
)

// Steady state: a closed loop of C workers measures the server at
// concurrency C only while all C are busy. At the start of a measured
// phase every worker sends at once; at its end the last C requests drain
// one by one, and for about one latency fewer than C are in flight. With
// few requests per worker that drain is much of the window: measured, a
// C=32 level of 48 requests lasted 0.133 s, all 32 workers were busy for
// 52 % of it and the mean in flight was 23.9, and its throughput ratio
// (1.81×, 1.66×–1.95×) did not overlap the same servers' with 768
// requests (2.55×, 2.54×–2.56×).
const (
	// SteadyMeanShare is the share of C the mean in flight must reach.
	SteadyMeanShare = 0.9
	// SteadyFullShare is the share of the window all C must be busy.
	SteadyFullShare = 0.8
	// SteadyRequestsPerWorker is the number of measured requests per
	// worker below which run warns before measuring: a drain of about one
	// latency in a window of n latencies leaves a mean in flight near
	// C·(1 − 1/(2n)), above SteadyMeanShare from n = 5 on, with room for
	// the latency's spread.
	SteadyRequestsPerWorker = 8
)

// SteadyState is the mean in flight over the measured window (Little's
// law: the sum of the measured requests' latencies, successful or not,
// over window_s) and the share of the window during which at least c of
// them were in flight (an end and a start at the same instant count the
// end first, as PeakInFlight does). ok is false without a window.
func SteadyState(recs []schemas.Record, c int) (mean, full float64, ok bool) {
	type event struct {
		at    int64
		delta int
	}
	var ev []event
	var busy int64 // Σ latency in ns, exact
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure || r.EndNs < r.StartNs {
			continue
		}
		busy += r.EndNs - r.StartNs
		ev = append(ev, event{r.StartNs, +1}, event{r.EndNs, -1})
	}
	if len(ev) == 0 {
		return 0, 0, false
	}
	slices.SortFunc(ev, func(a, b event) int {
		if x := cmp.Compare(a.at, b.at); x != 0 {
			return x
		}
		return cmp.Compare(a.delta, b.delta)
	})
	window := ev[len(ev)-1].at - ev[0].at
	if window <= 0 {
		return 0, 0, false
	}
	var atC int64
	cur := 0
	for i, e := range ev {
		cur += e.delta
		if cur >= c && i+1 < len(ev) {
			atC += ev[i+1].at - e.at
		}
	}
	return float64(busy) / float64(window), float64(atC) / float64(window), true
}

// Steady says a repeat's metrics show steady state at concurrency c:
// mean_in_flight at least SteadyMeanShare·C and full_concurrency_share at
// least SteadyFullShare. known is false when the claims do not carry the
// figures (sealed by a build that did not compute them).
func Steady(m schemas.Metrics, c int) (steady, known bool) {
	if m.MeanInFlight == nil || m.FullConcurrencyShare == nil {
		return false, false
	}
	return *m.MeanInFlight >= SteadyMeanShare*float64(c)*(1-1e-9) && *m.FullConcurrencyShare >= SteadyFullShare*(1-1e-9), true
}

// SteadyRequests is the number of measured requests a repeat like m would
// need to reach steady state at concurrency c, at least m.Requests. It
// takes the idle worker-seconds of the drain, C·window − Σ latency, and
// the time below C as fixed costs of a window that grows with the
// requests at the same rate (a longer run has the same ramp and drain):
// the mean reaches SteadyMeanShare·C when the window is (C − mean)/(C −
// SteadyMeanShare·C) times longer, the share when it is (1 − share)/(1 −
// SteadyFullShare) times longer. 0 when m carries no figures.
func SteadyRequests(m schemas.Metrics, c int) int {
	if m.MeanInFlight == nil || m.FullConcurrencyShare == nil || c <= 0 {
		return 0
	}
	grow := math.Max((float64(c)-*m.MeanInFlight)/(float64(c)*(1-SteadyMeanShare)), (1-*m.FullConcurrencyShare)/(1-SteadyFullShare))
	n := int(math.Ceil(float64(m.Requests)*grow - 1e-9))
	return max(n, m.Requests, c)
}
