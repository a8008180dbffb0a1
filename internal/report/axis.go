package report

import (
	"math"
	"strconv"
)

// niceStep is the smallest step of the 1-2-5 series (…, 0.1, 0.2, 0.5, 1,
// 2, 5, 10, …) that covers [0, max] in at most maxTicks intervals. Readers
// compare charts at a glance; round steps make that possible.
func niceStep(max float64, maxTicks int) float64 {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1
	}
	raw := max / float64(maxTicks)
	exp := math.Floor(math.Log10(raw))
	base := math.Pow(10, exp)
	for _, m := range []float64{1, 2, 5, 10} {
		if s := m * base; s >= raw*(1-1e-9) {
			return s
		}
	}
	return 10 * base
}

// yTicks returns the ticks of a linear axis from 0 that covers max with a
// 1-2-5 step: 0, step, 2*step, … up to the first tick at or above max.
// A chart starts at 0 so that a ratio of two heights is a ratio of values.
func yTicks(max float64) []float64 {
	step := niceStep(max, 5)
	n := int(math.Ceil(max/step - 1e-9))
	if n < 1 {
		n = 1
	}
	ticks := make([]float64, n+1)
	for i := range ticks {
		// Multiplying (not adding) keeps 0.1*3 from drifting to 0.30000000000000004.
		ticks[i] = float64(i) * step
	}
	return ticks
}

// tickLabel formats v with as many decimals as step needs, so that labels
// of one axis line up (0.5, 1.0, 1.5 rather than 0.5, 1, 1.5).
func tickLabel(v, step float64) string {
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// logAxis maps concurrency levels onto [x0, x1] on a log2 scale, with half
// an octave of margin on each side so that markers never sit on the frame.
// A single level sits in the middle.
type logAxis struct {
	lo, hi float64 // log2 of the axis ends
	x0, x1 float64
}

func newLogAxis(levels []int, x0, x1 float64) logAxis {
	vs := make([]float64, 0, len(levels))
	for _, c := range levels {
		if c >= 1 {
			vs = append(vs, float64(c))
		}
	}
	return newLogAxisOf(vs, x0, x1)
}

// newLogAxisOf is the log2 axis of positive values (an open loop's
// offered rates: 0.5 req/s is as valid as 40).
func newLogAxisOf(vs []float64, x0, x1 float64) logAxis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range vs {
		if !(x > 0) || math.IsInf(x, 0) {
			continue
		}
		l := math.Log2(x)
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 0
	}
	return logAxis{lo: lo - 0.5, hi: hi + 0.5, x0: x0, x1: x1}
}

func (a logAxis) pos(c int) float64 { return a.at(float64(max(c, 1))) }

// at is the position of value x (> 0).
func (a logAxis) at(x float64) float64 {
	return a.x0 + (math.Log2(x)-a.lo)/(a.hi-a.lo)*(a.x1-a.x0)
}

// levelAxis places a chart's levels: by concurrency for a closed loop's
// charts, by offered rate for the charts against it.
type levelAxis struct {
	log   logAxis
	value func(c int) float64 // where level c sits
	label func(c int) string  // its tick label: the concurrency, or the offered rate
	title string
}

func (a levelAxis) pos(c int) float64 { return a.log.at(a.value(c)) }

func (v *view) xAxis(ch Chart) levelAxis {
	if !v.againstRate(ch) {
		return levelAxis{log: newLogAxis(v.levels, plotL, plotR), value: func(c int) float64 { return float64(max(c, 1)) }, label: strconv.Itoa, title: v.tr("concurrency (log₂ scale)")}
	}
	rate := func(c int) float64 {
		if r, ok := v.rateOf(c); ok && r > 0 {
			return r
		}
		return 1
	}
	vs := make([]float64, len(v.levels))
	for i, c := range v.levels {
		vs[i] = rate(c)
	}
	return levelAxis{log: newLogAxisOf(vs, plotL, plotR), value: rate, label: func(c int) string { return rateText(rate(c)) }, title: v.tr("offered rate, requests / s (log₂ scale)")}
}

// linAxis maps [0, max] onto [y0, y1] (y0 at the bottom: SVG y grows down).
type linAxis struct {
	ticks  []float64
	y0, y1 float64
}

func newLinAxis(max float64, y0, y1 float64) linAxis {
	return linAxis{ticks: yTicks(max), y0: y0, y1: y1}
}

func (a linAxis) top() float64 { return a.ticks[len(a.ticks)-1] }

func (a linAxis) step() float64 {
	if len(a.ticks) < 2 {
		return 1
	}
	return a.ticks[1] - a.ticks[0]
}

func (a linAxis) pos(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		v = 0
	}
	return a.y0 - v/a.top()*(a.y0-a.y1)
}
