package claims

import (
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// The search doubles while levels pass, halves while none has, bisects
// the bracket once it has one, and ends within Precision or at MaxLevels:
// against a server that passes up to 24.4 req/s, from 4 req/s it offers
// 4, 8, 16, 32, 24, 28, 26 and ends at [24, 26).
func TestRateSearchNext(t *testing.T) {
	s := RateSearch{Start: 4, Precision: 0.1, MaxLevels: 10}
	var steps []SearchStep
	var offered []float64
	for rate := s.Next(nil); rate != 0; rate = s.Next(steps) {
		offered = append(offered, rate)
		steps = append(steps, SearchStep{Rate: rate, Pass: rate <= 24.4})
	}
	if got, want := offered, []float64{4, 8, 16, 32, 24, 28, 26}; !slices.Equal(got, want) {
		t.Errorf("offered %v, want %v", got, want)
	}
	if lo, hi := Bracket(steps); lo != 24 || hi != 26 {
		t.Errorf("bracket [%v, %v), want [24, 26)", lo, hi)
	}
	// None passes: halve below the lowest failure.
	if got := s.Next([]SearchStep{{4, false}, {2, false}}); got != 1 {
		t.Errorf("after 4 and 2 failed: %v, want 1", got)
	}
	// MaxLevels ends it with no bracket.
	short := RateSearch{Start: 4, Precision: 0.1, MaxLevels: 2}
	if got := short.Next([]SearchStep{{4, true}, {8, true}}); got != 0 {
		t.Errorf("past MaxLevels: %v", got)
	}
	for _, bad := range []RateSearch{{0, 0.1, 5}, {1, 0, 5}, {1, 1, 5}, {1, 0.1, 1}} {
		if bad.Check() == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

// openRepeat is one open-loop repeat's measured records: n arrivals every
// gap ns, each served in lat ns plus grow·i ns (a queue that builds),
// failing where fail says.
func openRepeat(n int, gap, lat, grow int64, fail func(i int) bool) []schemas.Record {
	var recs []schemas.Record
	for i := range n {
		planned := int64(i+1) * gap
		r := schemas.Record{Phase: schemas.PhaseMeasure, Seq: i, PlannedNs: planned, StartNs: planned, EndNs: planned + lat + grow*int64(i), OK: true}
		if fail != nil && fail(i) {
			r.OK, r.ErrorClass = false, schemas.ErrHTTP
		}
		recs = append(recs, r)
	}
	return recs
}

// A level passes when every repeat kept up and 99 % of its requests met
// the SLO; a growing queue, a failure share above 1 %, requests past the
// SLO or too few requests to judge each fail it, saying which.
func TestLevelPass(t *testing.T) {
	e2e := 0.5
	slo := schemas.SLO{E2ES: &e2e}
	ok := openRepeat(60, 50e6, 40e6, 0, nil)
	if pass, why := LevelPass([][]schemas.Record{ok, ok}, 20, slo); !pass {
		t.Errorf("a steady level failed: %s", why)
	}
	for name, c := range map[string]struct {
		recs []schemas.Record
		why  string
	}{
		"queue":   {openRepeat(60, 50e6, 40e6, 5e6, nil), "did not keep up"},
		"failed":  {openRepeat(60, 50e6, 40e6, 0, func(i int) bool { return i%20 == 3 }), "did not keep up"},
		"slo":     {openRepeat(60, 50e6, 600e6, 0, nil), "met the SLO"},
		"too few": {openRepeat(12, 50e6, 40e6, 0, nil), "not observed"},
	} {
		pass, why := LevelPass([][]schemas.Record{ok, c.recs}, 20, slo)
		if pass || !strings.Contains(why, "repeat 2") || !strings.Contains(why, c.why) {
			t.Errorf("%s: pass %v, %q (want %q)", name, pass, why, c.why)
		}
	}
}
