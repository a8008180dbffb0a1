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
	SingleRepeat              // a side has one repeat: no interval
	NoDifference              // repeats overlap or the interval contains 1
	Ahead                     // one side leads
)

// Defaults of Options.
const (
	DefaultResamples = 2000
	DefaultSeed      = 1
	// MaxFailed is the failed share of requests above which a side is
	// not comparable.
	MaxFailed = 0.01
)

// Side is one target at one level.
type Side struct {
	Name string
	// Repeats holds the metric of each repeat (higher is better); NaN or
	// a repeat without a successful request is left out.
	Repeats []float64
	// Requests and Failed are summed over repeats.
	Requests, Failed int
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
}

// Result is the comparison of A with B.
type Result struct {
	Kind Kind
	// Ratio is median(A)/median(B); NaN when a side has no value.
	Ratio float64
	// Lo and Hi bound the 95 % bootstrap interval of Ratio; NaN when
	// there is none (NotComparable, SingleRepeat).
	Lo, Hi float64
	// Leader is 0 (A) or 1 (B) when Kind is Ahead, else -1; By is the
	// lead as a fraction (0.12 for 12 %).
	Leader int
	By     float64
	// Culprit is the side (0 or 1) that made it NotComparable or
	// SingleRepeat (the first that did), -1 otherwise; Failed its failed
	// share, and NoSuccess whether it had no successful request.
	Culprit   int
	Failed    float64
	NoSuccess bool
}

// Compare applies the rule of the package doc to a and b.
func Compare(a, b Side, opts Options) Result {
	if opts.Resamples <= 0 {
		opts.Resamples = DefaultResamples
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	r := Result{Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Leader: -1, Culprit: -1}
	va, vb := a.values(), b.values()
	if len(va) > 0 && len(vb) > 0 {
		r.Ratio = median(va) / median(vb)
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
	for i, v := range [][]float64{va, vb} {
		if len(v) < 2 {
			r.Kind, r.Culprit = SingleRepeat, i
			return r
		}
	}
	r.Lo, r.Hi = interval(va, vb, opts)
	overlap := slices.Min(va) <= slices.Max(vb) && slices.Min(vb) <= slices.Max(va)
	if overlap || (r.Lo <= 1 && r.Hi >= 1) {
		r.Kind = NoDifference
		return r
	}
	r.Kind = Ahead
	if r.Ratio >= 1 {
		r.Leader, r.By = 0, r.Ratio-1
	} else {
		r.Leader, r.By = 1, 1/r.Ratio-1
	}
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
		ratios[i] = median(ra) / median(rb)
	}
	slices.Sort(ratios)
	return rank(ratios, 0.025), rank(ratios, 0.975)
}

// rank is the nearest-rank percentile p of sorted xs.
func rank(xs []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(k, 0), len(xs)-1)]
}

// median of xs (the mean of the middle two for an even count); xs is
// sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
