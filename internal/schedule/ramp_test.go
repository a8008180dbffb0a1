package schedule

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// A ramp sends Λ(D) warm-ups, the last at D exactly, and its arrivals
// follow the climbing rate: over the ramp's first tenth fewer arrive than
// over its last tenth, about as Λ says (constant gaps: within one
// arrival), for both strategies and every burstiness.
func TestRampFollowsItsRate(t *testing.T) {
	const rate = 50.0
	for _, r := range []Ramp{
		{Strategy: RampLinear, Start: 0, Duration: 10 * time.Second},
		{Strategy: RampLinear, Start: 5, Duration: 4 * time.Second},
		{Strategy: RampExponential, Start: 1, Duration: 10 * time.Second},
	} {
		n := r.Requests(rate)
		want := r.integral(rate, r.Duration.Seconds())
		if math.Abs(float64(n)-want) > 0.5 {
			t.Errorf("%+v: %d warm-ups, Λ(D) = %.2f", r, n, want)
		}
		for _, k := range []float64{0.5, 1, math.Inf(1)} {
			offs, err := RampOffsets(Params{Seed: 7, Rate: rate, Burstiness: k, Repeat: 1}, r, n)
			if err != nil {
				t.Fatal(err)
			}
			if offs[n-1] != r.Duration || !slices.IsSorted(offs) || offs[0] < 0 {
				t.Errorf("%+v k=%v: last %v of %v, sorted %v, first %v", r, k, offs[n-1], r.Duration, slices.IsSorted(offs), offs[0])
			}
			d := r.Duration.Seconds()
			first, last := 0, 0
			for _, o := range offs {
				switch s := o.Seconds(); {
				case s <= d/10:
					first++
				case s > 0.9*d:
					last++
				}
			}
			wantFirst, wantLast := r.integral(rate, d/10), want-r.integral(rate, 0.9*d)
			if first >= last {
				t.Errorf("%+v k=%v: %d arrivals in the first tenth, %d in the last: not ramping up", r, k, first, last)
			}
			if math.IsInf(k, 1) && (math.Abs(float64(first)-wantFirst) > 1.5 || math.Abs(float64(last)-wantLast) > 1.5) {
				t.Errorf("%+v constant: %d and %d arrivals in the first and last tenth, Λ says %.1f and %.1f", r, first, last, wantFirst, wantLast)
			}
		}
	}
}

// Λ⁻¹ inverts Λ, for both strategies, from a start of 0 (linear) up.
func TestRampInverse(t *testing.T) {
	for _, r := range []Ramp{{RampLinear, 0, time.Second}, {RampLinear, 3, 2 * time.Second}, {RampExponential, 0.5, 3 * time.Second}} {
		for _, ts := range []float64{1e-3, 0.2, 0.5, 1} {
			ts *= r.Duration.Seconds()
			if got := r.at(20, r.integral(20, ts)); math.Abs(got-ts) > 1e-9 {
				t.Errorf("%+v: Λ⁻¹(Λ(%v)) = %v", r, ts, got)
			}
		}
	}
}

// A re-implementation compares its offsets with these (seed 1, 10 req/s,
// Poisson, repeat 1, a linear ramp from 2 req/s over 1 s: 6 warm-ups).
func TestRampVector(t *testing.T) {
	r := Ramp{Strategy: RampLinear, Start: 2, Duration: time.Second}
	if n := r.Requests(10); n != 6 {
		t.Fatalf("%d warm-ups, want 6", n)
	}
	got, err := RampOffsets(Params{Seed: 1, Rate: 10, Burstiness: 1, Repeat: 1}, r, 6)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{538931250, 643836322, 801280463, 879086154, 986063503, 1000000000}
	if !slices.Equal(got, want) {
		t.Errorf("offsets %#v, want %#v", got, want)
	}
}

// The ramp's parameters each change the stream; a bad ramp is refused;
// run.json's ramp_up reads back as the Ramp.
func TestRampParams(t *testing.T) {
	p := Params{Seed: 3, Rate: 20, Burstiness: 1, Repeat: 1}
	base := Ramp{Strategy: RampLinear, Start: 2, Duration: 5 * time.Second}
	a, _ := RampOffsets(p, base, 40)
	for _, q := range []Ramp{{RampLinear, 3, 5 * time.Second}, {RampLinear, 2, 6 * time.Second}, {RampExponential, 2, 5 * time.Second}} {
		if b, _ := RampOffsets(p, q, 40); slices.Equal(a[:39], b[:39]) {
			t.Errorf("%+v derived the offsets of %+v", q, base)
		}
	}
	for _, bad := range []Ramp{{"step", 1, time.Second}, {RampExponential, 0, time.Second}, {RampLinear, 20, time.Second}, {RampLinear, 1, 0}, {RampLinear, -1, time.Second}} {
		if bad.Check(20) == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	got, err := RampFromProtocol(schemas.Protocol{RequestRates: []float64{20, 40}, RampUp: &schemas.RampUp{Strategy: "linear", StartRPS: 2, DurationS: 5}})
	if err != nil || got == nil || *got != base {
		t.Errorf("from run.json: %+v, %v", got, err)
	}
	if _, err := RampFromProtocol(schemas.Protocol{RequestRates: []float64{1, 40}, RampUp: &schemas.RampUp{Strategy: "linear", StartRPS: 2, DurationS: 5}}); err == nil {
		t.Error("a ramp starting above a level's rate read back")
	}
}
