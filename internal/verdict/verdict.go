package verdict

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Kind is the verdict's class, in the order of the rule (see the package
// doc).
type Kind int

const (
	NotComparable Kind = iota // a side failed too many requests, or none succeeded
	NotSteady                 // a side's window never reached steady state
	SingleRepeat              // a side has one repeat: no interval
	NoDifference              // repeats overlap or the interval contains 1
	WithinNoise               // apart, but by no more than the minimum effect
	Ahead                     // one side leads
)

// Defaults of Options.
const (
	DefaultResamples = 2000
	DefaultSeed      = 1
	// MaxFailed is the failed share of requests above which a side is
	// not comparable.
	MaxFailed = 0.01
	// DefaultMinEffect is the lead (as a fraction) at or below which a
	// difference is within noise (see the package doc for why 5 %).
	DefaultMinEffect = 0.05
	// MinBootstrapRepeats is the fewest repeats a side needs for a
	// bootstrap over repeats alone; with fewer, the interval is the range
	// over repeats (RangeOverRepeats).
	MinBootstrapRepeats = 5
)

// Side is one target at one level.
type Side struct {
	Name string
	// Repeats holds the metric of each repeat (higher is better); NaN or
	// a repeat without a successful request is left out.
	Repeats []float64
	// Requests and Failed are summed over repeats.
	Requests, Failed int
	// CacheHits is the growth of the server's cache-hit counters during
	// measurement, summed over repeats, when perturbation was on (every
	// request distinct); 0 when none were counted or when the caller has
	// no counter or ran without perturbation. Only requests answered from
	// a cache count (a counter of whole inputs); tokens a prefix cache
	// reused do not.
	CacheHits float64
	// Cached is true when the target answered from its cache with
	// perturbation off: its cache probe says it caches identical audio
	// (claims.ProbeInflated), and the run sent clips unchanged. Its
	// figures then measure cached serving, not transcription.
	Cached bool
	// ClientStalled, when set, names a repeat whose client stalled (its
	// workers' gaps, internal/claims.ClientStalled: the load was not what
	// the concurrency says): the side's figures measure the client as
	// much as the server. Verify's check 7 reports the same steps.
	ClientStalled string
	// Unsteady, when set, says a repeat of the side never reached steady
	// state at its concurrency (the caller's rule: internal/claims.Steady):
	// its throughput is partly the ramp and drain of a short window.
	Unsteady *Shortfall
	// Latencies, when set, holds each repeat's successful request
	// latencies in seconds (Latencies[i] belongs to Repeats[i]): the
	// interval then also resamples requests within repeats (see the
	// package doc). Nil: repeats only.
	Latencies [][]float64
}

// Shortfall is how far a side's worst repeat was from steady state: its
// mean in flight at concurrency C, and the measured requests a repeat
// would need to reach it.
type Shortfall struct {
	MeanInFlight float64
	Concurrency  int
	Requests     int
}

// FailedShare is Failed/Requests, 0 without requests.
func (s Side) FailedShare() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Failed) / float64(s.Requests)
}

func (s Side) values() []float64 {
	var v []float64
	for _, x := range s.Repeats {
		if !math.IsNaN(x) && !math.IsInf(x, 0) && x > 0 {
			v = append(v, x)
		}
	}
	return v
}

// Options tune Compare; the zero value uses the defaults.
type Options struct {
	Resamples int
	Seed      uint64
	// MinEffect is the smallest lead (a fraction: 0.05 is 5 %) called
	// Ahead; 0 takes DefaultMinEffect, a negative value none (any lead
	// beyond the interval and the repeats' overlap).
	MinEffect float64
}

// Effect is the minimum effect opts ask for (DefaultMinEffect when
// unset, 0 when negative).
func (o Options) Effect() float64 {
	switch {
	case o.MinEffect == 0:
		return DefaultMinEffect
	case o.MinEffect < 0:
		return 0
	}
	return o.MinEffect
}

// Exceeds says a lead (a fraction) is beyond the minimum effect min. A
// tiny epsilon keeps a lead of exactly min (5 % computed as
// 0.05000000000000004) within it, as claims.Compare keeps a change of
// exactly its tolerance within it: compare's verdict and its figure
// table then agree at the boundary too.
func Exceeds(lead, min float64) bool { return lead > min*(1+1e-9)+1e-12 }

// Result is the comparison of A with B.
type Result struct {
	Kind Kind
	// Ratio is Median(A)/Median(B); NaN when a side has no value.
	Ratio float64
	// Lo and Hi bound the 95 % bootstrap interval of Ratio; NaN when
	// there is none (NotComparable, SingleRepeat).
	Lo, Hi float64
	// Leader is 0 (A) or 1 (B) when Kind is Ahead, else -1; By is the
	// lead as a fraction (0.12 for 12 %), also set for WithinNoise (the
	// lead that did not exceed MinEffect).
	Leader int
	By     float64
	// MinEffect is the minimum effect the verdict applied (a fraction).
	MinEffect float64
	// Culprit is the side (0 or 1) that made it NotComparable or
	// SingleRepeat (the first that did), -1 otherwise; Failed its failed
	// share, and NoSuccess whether it had no successful request.
	Culprit   int
	Failed    float64
	NoSuccess bool
	// CacheHits is the culprit's counted cache hits when they made it
	// NotComparable, else 0.
	CacheHits float64
	// Cached: the culprit answered from its cache (Side.Cached).
	Cached bool
	// ClientStalled is the culprit's Side.ClientStalled when it made the
	// verdict NotComparable.
	ClientStalled string
	// Unsteady is the culprit's shortfall when it made the verdict
	// NotSteady.
	Unsteady *Shortfall
	// Basis says what the interval rests on (IntervalNone when there is
	// none).
	Basis Basis
}

// Basis is what an interval resamples.
type Basis int

const (
	IntervalNone Basis = iota
	// RepeatsOnly: the repeats' values only (no per-request data).
	RepeatsOnly
	// RequestsAndRepeats: repeats, and requests within each repeat.
	RequestsAndRepeats
	// RangeOverRepeats: no bootstrap; a side has fewer than
	// MinBootstrapRepeats repeats and no per-request data, and the
	// interval is the range of the ratio over repeats: min(A)/max(B) to
	// max(A)/min(B). It excludes 1 exactly when the repeats do not
	// overlap.
	RangeOverRepeats
)

// Compare applies the rule of the package doc to a and b.
func Compare(a, b Side, opts Options) Result {
	if opts.Resamples <= 0 {
		opts.Resamples = DefaultResamples
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	r := Result{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Leader: -1, Culprit: -1, MinEffect: opts.Effect()}
	va, vb := a.values(), b.values()
	if len(va) > 0 && len(vb) > 0 {
		r.Ratio = Median(va) / Median(vb)
	}
	for i, s := range []Side{a, b} {
		v := [][]float64{va, vb}[i]
		if len(v) == 0 {
			r.Kind, r.Culprit, r.NoSuccess, r.Failed = NotComparable, i, true, s.FailedShare()
			return r
		}
	}
	for i, s := range []Side{a, b} {
		if s.FailedShare() > MaxFailed {
			r.Kind, r.Culprit, r.Failed = NotComparable, i, s.FailedShare()
			return r
		}
	}
	for i, s := range []Side{a, b} {
		if s.CacheHits > 0 {
			r.Kind, r.Culprit, r.CacheHits = NotComparable, i, s.CacheHits
			return r
		}
	}
	for i, s := range []Side{a, b} {
		if s.Cached {
			r.Kind, r.Culprit, r.Cached = NotComparable, i, true
			return r
		}
	}
	for i, s := range []Side{a, b} {
		if s.ClientStalled != "" {
			r.Kind, r.Culprit, r.ClientStalled = NotComparable, i, s.ClientStalled
			return r
		}
	}
	for i, s := range []Side{a, b} {
		if s.Unsteady != nil {
			r.Kind, r.Culprit, r.Unsteady = NotSteady, i, s.Unsteady
			return r
		}
	}
	withRequests := hasLatencies(a) && hasLatencies(b)
	for i, v := range [][]float64{va, vb} {
		if len(v) < 2 && !withRequests {
			r.Kind, r.Culprit = SingleRepeat, i
			return r
		}
	}
	if withRequests {
		r.Lo, r.Hi = nestedInterval(a, b, opts)
		r.Basis = RequestsAndRepeats
	} else if min(len(va), len(vb)) < MinBootstrapRepeats {
		r.Lo, r.Hi = slices.Min(va)/slices.Max(vb), slices.Max(va)/slices.Min(vb)
		r.Basis = RangeOverRepeats
	} else {
		r.Lo, r.Hi = interval(va, vb, opts)
		r.Basis = RepeatsOnly
	}
	if len(va) < 2 || len(vb) < 2 {
		// One repeat: the interval (over its requests) is shown, but
		// one window is one observation of the setup.
		i := 0
		if len(va) >= 2 {
			i = 1
		}
		r.Kind, r.Culprit = SingleRepeat, i
		return r
	}
	overlap := slices.Min(va) <= slices.Max(vb) && slices.Min(vb) <= slices.Max(va)
	if overlap || (r.Lo <= 1 && r.Hi >= 1) {
		r.Kind = NoDifference
		return r
	}
	leader, by := 0, r.Ratio-1
	if r.Ratio < 1 {
		leader, by = 1, 1/r.Ratio-1
	}
	r.By = by
	if !Exceeds(by, r.MinEffect) {
		r.Kind = WithinNoise
		return r
	}
	r.Kind, r.Leader = Ahead, leader
	return r
}

// interval is the percentile bootstrap over repeats of the package doc.
func interval(va, vb []float64, opts Options) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(opts.Seed, 0x62656e636873))
	ra, rb := make([]float64, len(va)), make([]float64, len(vb))
	ratios := make([]float64, opts.Resamples)
	for i := range ratios {
		for j := range ra {
			ra[j] = va[rng.IntN(len(va))]
		}
		for j := range rb {
			rb[j] = vb[rng.IntN(len(vb))]
		}
		ratios[i] = Median(ra) / Median(rb)
	}
	slices.Sort(ratios)
	return rank(ratios, 0.025), rank(ratios, 0.975)
}

// hasLatencies says s carries per-request latencies for each usable
// repeat.
func hasLatencies(s Side) bool {
	if len(s.Latencies) != len(s.Repeats) {
		return false
	}
	n := 0
	for i, x := range s.Repeats {
		if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			continue
		}
		if len(s.Latencies[i]) == 0 {
			return false
		}
		n++
	}
	return n > 0
}

// usable are the (value, latencies) pairs of s's repeats with a value.
func usable(s Side) (vals []float64, lats [][]float64) {
	for i, x := range s.Repeats {
		if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			continue
		}
		vals, lats = append(vals, x), append(lats, s.Latencies[i])
	}
	return vals, lats
}

// nestedInterval is the two-level percentile bootstrap of the package
// doc: repeats resampled with replacement, then each drawn repeat's
// requests resampled with replacement, its value scaled by the ratio of
// its mean latency to the resample's (Little's law in a closed loop:
// throughput = concurrency / mean latency).
func nestedInterval(a, b Side, opts Options) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(opts.Seed, 0x62656e636873))
	va, la := usable(a)
	vb, lb := usable(b)
	ma, mb := means(la), means(lb)
	draw := func(vals []float64, lats [][]float64, mean []float64, out []float64) {
		for j := range out {
			k := rng.IntN(len(vals))
			l := lats[k]
			var sum float64
			for range l {
				sum += l[rng.IntN(len(l))]
			}
			out[j] = vals[k]
			if sum > 0 {
				out[j] = vals[k] * mean[k] / (sum / float64(len(l)))
			}
		}
	}
	ra, rb := make([]float64, len(va)), make([]float64, len(vb))
	ratios := make([]float64, opts.Resamples)
	for i := range ratios {
		draw(va, la, ma, ra)
		draw(vb, lb, mb, rb)
		ratios[i] = Median(ra) / Median(rb)
	}
	slices.Sort(ratios)
	return rank(ratios, 0.025), rank(ratios, 0.975)
}

func means(lats [][]float64) []float64 {
	m := make([]float64, len(lats))
	for i, l := range lats {
		var sum float64
		for _, x := range l {
			sum += x
		}
		m[i] = sum / float64(len(l))
	}
	return m
}

// rank is the nearest-rank percentile p of sorted xs.
func rank(xs []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(k, 0), len(xs)-1)]
}

// Median is the median of xs (the mean of the middle two for an even
// count, 0 for none); xs is sorted in place. It is benchseal's one median:
// claims' medians over repeats, the report's and the verdict's.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Percentile is the p-th percentile (0..100) of sorted, ascending values
// with numpy's default linear interpolation (internal/claims' doc says
// why), 0 for no values. It is benchseal's one percentile: claims' and
// every task's figures (internal/task's Figurers).
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	r := p / 100 * float64(n-1)
	lo, hi := math.Floor(r), math.Ceil(r)
	if lo < 0 {
		return sorted[0]
	}
	if int(hi) >= n {
		return sorted[n-1]
	}
	a, b := sorted[int(lo)], sorted[int(hi)]
	return a + (b-a)*(r-lo)
}

// RatioInterval is the seeded 95 % percentile bootstrap interval of
// Median(va)/Median(vb), resampling each side's values independently
// (opts' zero values take the defaults). It is the interval Compare uses
// over repeats, for callers with plain samples (the cache probe's
// latencies).
func RatioInterval(va, vb []float64, opts Options) (lo, hi float64) {
	if opts.Resamples <= 0 {
		opts.Resamples = DefaultResamples
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	return interval(va, vb, opts)
}
