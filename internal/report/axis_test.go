package report

import (
	"math"
	"slices"
	"testing"
)

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct {
		max, want float64
	}{
		{1, 0.2}, {4.8, 1}, {5, 1}, {5.01, 2}, {9.99, 2}, {10, 2}, {10.5, 5}, {24, 5},
		{26, 10}, {0.037, 0.01}, {1234, 500}, {0, 1}, {-3, 1}, {math.NaN(), 1}, {math.Inf(1), 1},
	} {
		if got := niceStep(tc.max, 5); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("niceStep(%v) = %v, want %v", tc.max, got, tc.want)
		}
	}
}

func TestYTicks(t *testing.T) {
	for _, tc := range []struct {
		max  float64
		want []float64
	}{
		{8.24, []float64{0, 2, 4, 6, 8, 10}},
		{10, []float64{0, 2, 4, 6, 8, 10}},
		{0.3, []float64{0, 0.1, 0.2, 0.30000000000000004}},
		{1.87, []float64{0, 0.5, 1, 1.5, 2}},
		{0, []float64{0, 1}},
		{53.6, []float64{0, 20, 40, 60}},
	} {
		got := yTicks(tc.max)
		if !slices.Equal(got, tc.want) {
			t.Errorf("yTicks(%v) = %v, want %v", tc.max, got, tc.want)
		}
		if top := got[len(got)-1]; top < tc.max {
			t.Errorf("yTicks(%v) ends at %v, below the data", tc.max, top)
		}
	}
}

func TestTickLabel(t *testing.T) {
	for _, tc := range []struct {
		v, step float64
		want    string
	}{
		{1, 0.5, "1.0"}, {0.30000000000000004, 0.1, "0.3"}, {40, 20, "40"}, {0.05, 0.01, "0.05"}, {0, 0.2, "0.0"},
	} {
		if got := tickLabel(tc.v, tc.step); got != tc.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tc.v, tc.step, got, tc.want)
		}
	}
}

func TestLogAxis(t *testing.T) {
	a := newLogAxis([]int{1, 2, 4, 8, 16, 32, 64, 128}, 0, 800)
	// Eight octaves plus half an octave of margin each side: 100 units each.
	for i, c := range []int{1, 2, 4, 8, 16, 32, 64, 128} {
		if got, want := a.pos(c), 50+100*float64(i); math.Abs(got-want) > 1e-9 {
			t.Errorf("pos(%d) = %v, want %v", c, got, want)
		}
	}
	// A level between powers of two lands between them, by its logarithm.
	if got, want := a.pos(3), 50+100*math.Log2(3); math.Abs(got-want) > 1e-9 {
		t.Errorf("pos(3) = %v, want %v", got, want)
	}
	one := newLogAxis([]int{16}, 100, 300)
	if got := one.pos(16); got != 200 {
		t.Errorf("a single level sits at %v, want the middle 200", got)
	}
	empty := newLogAxis(nil, 0, 10)
	if got := empty.pos(1); math.IsNaN(got) || got != 5 {
		t.Errorf("empty axis pos(1) = %v", got)
	}
}

func TestLinAxis(t *testing.T) {
	a := newLinAxis(8.24, 340, 40)
	if a.pos(0) != 340 || a.pos(10) != 40 || a.pos(5) != 190 {
		t.Errorf("pos(0,5,10) = %v %v %v, want 340 190 40", a.pos(0), a.pos(5), a.pos(10))
	}
	if a.pos(math.NaN()) != 340 || a.pos(-1) != 340 {
		t.Error("NaN and negatives must sit on the baseline")
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {123.4, "123"}, {12.34, "12.3"}, {1.234, "1.23"}, {0.1234, "0.123"}, {0.0001234, "0.00012"},
		{math.NaN(), "n/a"}, {math.Inf(1), "n/a"},
	} {
		if got := num(tc.x); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := spread(2, 2.0001, 1.9999); got != "2.00" {
		t.Errorf("spread of equal-looking repeats = %q, want the median alone", got)
	}
	if got := spread(2, 1.5, 2.5); got != "2.00 [1.50–2.50]" {
		t.Errorf("spread = %q", got)
	}
}
