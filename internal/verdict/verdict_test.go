package verdict

import (
	"math"
	"testing"
)

func TestCompareRule(t *testing.T) {
	cases := []struct {
		name   string
		a, b   Side
		kind   Kind
		leader int
	}{
		{"A clearly ahead", Side{Repeats: []float64{10, 10.2, 9.9}, Requests: 300}, Side{Repeats: []float64{8, 8.1, 7.9}, Requests: 300}, Ahead, 0},
		{"B clearly ahead", Side{Repeats: []float64{5, 5.1}, Requests: 200}, Side{Repeats: []float64{8, 8.1}, Requests: 200}, Ahead, 1},
		{"repeats overlap", Side{Repeats: []float64{10, 8.5, 9}, Requests: 300}, Side{Repeats: []float64{9, 8, 8.2}, Requests: 300}, NoDifference, -1},
		{"single repeat", Side{Repeats: []float64{10}, Requests: 100}, Side{Repeats: []float64{8, 8}, Requests: 200}, SingleRepeat, -1},
		{"B failed 75 %", Side{Repeats: []float64{5, 5.1}, Requests: 200}, Side{Repeats: []float64{9, 9.1}, Requests: 200, Failed: 150}, NotComparable, -1},
		{"1 % is still comparable", Side{Repeats: []float64{10, 10.2}, Requests: 200, Failed: 2}, Side{Repeats: []float64{8, 8.1}, Requests: 200}, Ahead, 0},
		{"no success", Side{Repeats: []float64{0, math.NaN()}, Requests: 200, Failed: 200}, Side{Repeats: []float64{8, 8.1}, Requests: 200}, NotComparable, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Compare(tc.a, tc.b, Options{})
			if r.Kind != tc.kind || r.Leader != tc.leader {
				t.Fatalf("got kind %d leader %d, want %d %d (%+v)", r.Kind, r.Leader, tc.kind, tc.leader, r)
			}
			if tc.kind == NotComparable && r.Culprit < 0 {
				t.Errorf("no culprit: %+v", r)
			}
			if (tc.kind == Ahead || tc.kind == NoDifference) && !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) {
				t.Errorf("ratio %v outside its interval [%v, %v]", r.Ratio, r.Lo, r.Hi)
			}
		})
	}
}

func TestAheadBy(t *testing.T) {
	r := Compare(Side{Repeats: []float64{12, 12, 12}, Requests: 3}, Side{Repeats: []float64{10, 10, 10}, Requests: 3}, Options{})
	if r.Kind != Ahead || r.Leader != 0 || math.Abs(r.By-0.2) > 1e-12 || r.Lo != 1.2 || r.Hi != 1.2 {
		t.Fatalf("%+v", r)
	}
	r = Compare(Side{Repeats: []float64{10, 10}, Requests: 2}, Side{Repeats: []float64{12, 12}, Requests: 2}, Options{})
	if r.Leader != 1 || math.Abs(r.By-0.2) > 1e-12 {
		t.Fatalf("%+v", r)
	}
}

// The interval is seeded: the same input gives the same bounds, another
// seed other bounds, and the bounds stay within the ratios of extremes.
func TestIntervalDeterministic(t *testing.T) {
	a := Side{Repeats: []float64{10, 11, 12, 10.5, 11.7}, Requests: 500}
	b := Side{Repeats: []float64{7, 7.4, 8, 7.1, 7.9}, Requests: 500}
	r1, r2 := Compare(a, b, Options{}), Compare(a, b, Options{})
	if r1 != r2 {
		t.Fatalf("not deterministic: %+v vs %+v", r1, r2)
	}
	r3 := Compare(a, b, Options{Seed: 7})
	if r3.Lo == r1.Lo && r3.Hi == r1.Hi {
		t.Errorf("seed changes nothing: %+v", r3)
	}
	if r1.Lo < 10.0/8 || r1.Hi > 12.0/7 || r1.Lo >= r1.Hi {
		t.Errorf("interval [%v, %v] outside [%v, %v]", r1.Lo, r1.Hi, 10.0/8, 12.0/7)
	}
}

// A server that counted cache hits with perturbation on is not
// comparable, however far ahead its numbers are (trial finding 2).
func TestCacheHitsNotComparable(t *testing.T) {
	fast := Side{Name: "vc", Repeats: []float64{1849.8, 2421.7}, Requests: 24, CacheHits: 26}
	slow := Side{Name: "v", Repeats: []float64{25.1, 25.3}, Requests: 24}
	for _, order := range [][2]Side{{fast, slow}, {slow, fast}} {
		r := Compare(order[0], order[1], Options{})
		if r.Kind != NotComparable || r.CacheHits != 26 {
			t.Fatalf("got %+v, want not comparable for 26 cache hits", r)
		}
		if got := []Side{order[0], order[1]}[r.Culprit].Name; got != "vc" {
			t.Errorf("culprit %q, want vc", got)
		}
	}
}

// With per-request latencies the interval resamples requests within
// repeats too: 2 repeats alone give a 2-valued bootstrap, the requests
// give a spread; the result is seeded and deterministic.
func TestIntervalOverRequests(t *testing.T) {
	lat := func(base float64, n int) []float64 {
		var l []float64
		for i := range n {
			l = append(l, base*(0.5+float64(i%7)/6))
		}
		return l
	}
	a := Side{Repeats: []float64{12, 12.1}, Requests: 80, Latencies: [][]float64{lat(0.08, 40), lat(0.08, 40)}}
	b := Side{Repeats: []float64{10, 10.1}, Requests: 80, Latencies: [][]float64{lat(0.1, 40), lat(0.1, 40)}}
	r := Compare(a, b, Options{})
	if r.Basis != RequestsAndRepeats {
		t.Fatalf("basis %v, want RequestsAndRepeats", r.Basis)
	}
	ro := Compare(Side{Repeats: a.Repeats, Requests: 80}, Side{Repeats: b.Repeats, Requests: 80}, Options{})
	if ro.Basis != RangeOverRepeats {
		t.Fatalf("basis %v, want RangeOverRepeats", ro.Basis)
	}
	if !(r.Hi-r.Lo > 2*(ro.Hi-ro.Lo)) || !(r.Lo < r.Ratio && r.Ratio < r.Hi) {
		t.Errorf("requests interval [%v, %v] around %v is not wider than the repeats-only [%v, %v]", r.Lo, r.Hi, r.Ratio, ro.Lo, ro.Hi)
	}
	if r2 := Compare(a, b, Options{}); r2 != r {
		t.Errorf("not deterministic: %+v vs %+v", r, r2)
	}
	// One repeat with requests: an interval, but no lead claimed.
	one := Compare(Side{Repeats: []float64{12}, Requests: 40, Latencies: [][]float64{lat(0.08, 40)}}, b, Options{})
	if one.Kind != SingleRepeat || math.IsNaN(one.Lo) {
		t.Errorf("one repeat with requests: %+v", one)
	}
}

// A lead that the interval and the repeats support but that is not above
// the minimum effect is within noise: the replay-against-itself case of
// issue 23 (two repeats apart by 4 %).
func TestMinEffect(t *testing.T) {
	a := Side{Repeats: []float64{104, 104.2}, Requests: 200}
	b := Side{Repeats: []float64{100, 100.1}, Requests: 200}
	r := Compare(a, b, Options{})
	if r.Kind != WithinNoise || r.Leader != -1 || math.Abs(r.By-0.0405) > 0.001 || r.MinEffect != DefaultMinEffect {
		t.Fatalf("4 %% lead under the default: %+v", r)
	}
	if r := Compare(a, b, Options{MinEffect: 0.03}); r.Kind != Ahead || r.Leader != 0 {
		t.Fatalf("4 %% lead over a 3 %% minimum: %+v", r)
	}
	if r := Compare(a, b, Options{MinEffect: -1}); r.Kind != Ahead || r.MinEffect != 0 {
		t.Fatalf("no minimum: %+v", r)
	}
	// Exactly the minimum effect is within it (the boundary claims.Compare
	// uses for its tolerance).
	e := Compare(Side{Repeats: []float64{110, 110}, Requests: 2}, Side{Repeats: []float64{100, 100}, Requests: 2}, Options{MinEffect: 0.10})
	if e.Kind != WithinNoise {
		t.Fatalf("a lead of exactly the minimum: %+v", e)
	}
	if !Exceeds(0.1001, 0.10) || Exceeds(0.1, 0.1) {
		t.Fatal("Exceeds boundary")
	}
}

// With fewer than 5 repeats and no requests, the interval is the range of
// the ratio over repeats, not a bootstrap: 3 repeats of 77.1, 13.1 and
// 47.4 against 100, 101, 102 read 0.13×–0.77×; 5 repeats bootstrap.
func TestRangeOverFewRepeats(t *testing.T) {
	a := Side{Repeats: []float64{77.1, 13.1, 47.4}, Requests: 300}
	b := Side{Repeats: []float64{100, 101, 102}, Requests: 300}
	r := Compare(a, b, Options{})
	if r.Basis != RangeOverRepeats || math.Abs(r.Lo-13.1/102) > 1e-12 || math.Abs(r.Hi-77.1/100) > 1e-12 {
		t.Fatalf("range over 3 repeats: %+v", r)
	}
	// Overlapping repeats: the range contains 1, as rule 4 says.
	o := Compare(Side{Repeats: []float64{10, 12, 11}, Requests: 3}, Side{Repeats: []float64{11.5, 13, 12}, Requests: 3}, Options{})
	if o.Kind != NoDifference || !(o.Lo < 1 && o.Hi > 1) {
		t.Errorf("overlapping repeats: %+v", o)
	}
	five := Compare(Side{Repeats: []float64{10, 11, 12, 10.5, 11.7}, Requests: 5}, Side{Repeats: []float64{7, 7.4, 8, 7.1, 7.9}, Requests: 5}, Options{})
	if five.Basis != RepeatsOnly {
		t.Errorf("5 repeats: basis %v, want RepeatsOnly", five.Basis)
	}
}
