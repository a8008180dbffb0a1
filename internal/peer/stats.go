package peer

import (
	"math"
	"slices"

	"github.com/benchseal/benchseal/internal/claims"
)

// numpy's mean, median, percentile (linear interpolation, the default)
// and std (population, ddof=0) of values; nil when values is empty,
// where numpy would warn and give nan.
func npMean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return ptr(s / float64(len(v)))
}

func npPercentile(v []float64, p float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return ptr(claims.Percentile(s, p))
}

func npStd(v []float64) *float64 {
	m := npMean(v)
	if m == nil {
		return nil
	}
	var s float64
	for _, x := range v {
		s += (x - *m) * (x - *m)
	}
	return ptr(math.Sqrt(s / float64(len(v))))
}

func npMax(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	return ptr(slices.Max(v))
}

func scale(f *float64, k float64) *float64 {
	if f == nil {
		return nil
	}
	return ptr(*f * k)
}
