package schedule

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestDeterministic(t *testing.T) {
	p := Params{Seed: 42, Rate: 40, Burstiness: 1, Repeat: 1}
	a, err := Offsets(p, 500)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Offsets(p, 500)
	if !slices.Equal(a, b) {
		t.Fatal("the same parameters derived two schedules")
	}
	for _, q := range []Params{
		{Seed: 43, Rate: 40, Burstiness: 1, Repeat: 1},
		{Seed: 42, Rate: 41, Burstiness: 1, Repeat: 1},
		{Seed: 42, Rate: 40, Burstiness: 2, Repeat: 1},
		{Seed: 42, Rate: 40, Burstiness: 1, Repeat: 2},
	} {
		c, _ := Offsets(q, 500)
		if slices.Equal(a[:499], c[:499]) {
			t.Errorf("%+v derived the schedule of %+v", q, p)
		}
	}
	if !slices.IsSorted(a) || a[0] <= 0 {
		t.Errorf("offsets not increasing from after 0: first %v", a[0])
	}
}

// A re-implementation compares its first offsets with these (seed 1,
// 10 req/s, Poisson, repeat 1, 5 requests).
func TestVector(t *testing.T) {
	got, err := Offsets(Params{Seed: 1, Rate: 10, Burstiness: 1, Repeat: 1}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{18633917, 189252456, 368517856, 496503971, 500000000}
	if !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
}

func TestRescaledToNOverR(t *testing.T) {
	for _, k := range []float64{0.3, 1, 4, math.Inf(1)} {
		for _, n := range []int{1, 7, 1000} {
			o, err := Offsets(Params{Seed: 9, Rate: 25, Burstiness: k, Repeat: 3}, n)
			if err != nil {
				t.Fatal(err)
			}
			want := time.Duration(math.Round(float64(n) / 25 * 1e9))
			if d := o[n-1] - want; d < -1 || d > 1 {
				t.Errorf("k=%v n=%d: last offset %v, want %v", k, n, o[n-1], want)
			}
		}
	}
}

func TestConstant(t *testing.T) {
	o, err := Offsets(Params{Seed: 5, Rate: 8, Burstiness: math.Inf(1), Repeat: 1}, 16)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range o {
		if want := time.Duration(i+1) * 125 * time.Millisecond; d != want {
			t.Fatalf("offset %d: %v, want %v", i, d, want)
		}
	}
}

// The gaps have the gamma's mean 1/R and coefficient of variation
// 1/sqrt(k) (before rescaling, which moves the mean by ~1/sqrt(n)).
func TestGapStatistics(t *testing.T) {
	const n, rate = 20000, 50.0
	for _, k := range []float64{0.5, 1, 3} {
		o, err := Offsets(Params{Seed: 7, Rate: rate, Burstiness: k, Repeat: 1}, n)
		if err != nil {
			t.Fatal(err)
		}
		var sum, sq float64
		prev := time.Duration(0)
		for _, d := range o {
			g := (d - prev).Seconds()
			prev = d
			sum += g
			sq += g * g
		}
		mean := sum / n
		cv := math.Sqrt(sq/n-mean*mean) / mean
		if math.Abs(mean*rate-1) > 1e-6 {
			t.Errorf("k=%v: mean gap %v, want %v", k, mean, 1/rate)
		}
		if want := 1 / math.Sqrt(k); math.Abs(cv-want) > 0.05*want {
			t.Errorf("k=%v: gaps' coefficient of variation %.3f, want %.3f", k, cv, want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, p := range []Params{
		{Rate: 0, Burstiness: 1, Repeat: 1},
		{Rate: math.Inf(1), Burstiness: 1, Repeat: 1},
		{Rate: 1, Burstiness: 0, Repeat: 1},
		{Rate: 1, Burstiness: math.NaN(), Repeat: 1},
		{Rate: 1, Burstiness: 1, Repeat: 0},
	} {
		if _, err := Offsets(p, 3); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}
