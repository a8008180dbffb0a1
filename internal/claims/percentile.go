package claims

import (
	"slices"

	"github.com/benchseal/benchseal/internal/verdict"
)

// Percentile is verdict.Percentile, the one percentile: the p-th
// (0..100) of sorted, ascending values with numpy's default linear
// interpolation (see the package doc), 0 for no values.
func Percentile(sorted []float64, p float64) float64 { return verdict.Percentile(sorted, p) }

// median is verdict.Median, the one median (it sorts v).
func median(v []float64) float64 { return verdict.Median(v) }

// medianInt rounds the mean of the two middle values down.
func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	s := v[n/2-1] + v[n/2]
	if s < 0 {
		return (s - 1) / 2
	}
	return s / 2
}
