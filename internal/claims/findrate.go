package claims

import (
	"fmt"

	"github.com/benchseal/benchseal/schemas"
)

// The rate search (run --find-rate): an open loop of one target that
// chooses each next offered rate from the levels before it, to end at the
// highest rate that kept up and met the SLO. The runner applies it to the
// records it wrote and verify to the records sealed, so the two cannot
// disagree about a choice.
//
// A level passes when every repeat kept up (KeepUpOf over the repeat's
// figures and failed share) and at least SearchSLOShare of its measured
// requests succeeded within the SLO (each latency from its planned
// arrival, as Goodput counts it). A repeat whose keeping up is not
// observed (too few successes a third) does not pass: the search claims
// no rate it did not see served.
//
// Next: while every level passed, double the rate; while none did, halve
// the lowest; once a pass lies below a failure, offer the middle of the
// highest pass and the lowest failure above it, until that bracket is
// within Precision of its low end or MaxLevels were offered.

// SearchSLOShare is the share of a level's measured requests that must
// meet the SLO in every repeat for the level to pass.
const SearchSLOShare = 0.99

// RateSearch is the search's rule, as run.json's protocol.find_rate
// records it.
type RateSearch struct {
	Start     float64 // the first rate offered, requests per second
	Precision float64 // the bracket's width over its low end at which it ends
	MaxLevels int     // the most levels it offers
}

// Check says whether s can search.
func (s RateSearch) Check() error {
	switch {
	case !(s.Start > 0):
		return fmt.Errorf("start rate %v: must be positive", s.Start)
	case !(s.Precision > 0 && s.Precision < 1):
		return fmt.Errorf("precision %v: want a share between 0 and 1 (0.1: within 10 %%)", s.Precision)
	case s.MaxLevels < 2:
		return fmt.Errorf("at most %d levels: a search needs 2 or more", s.MaxLevels)
	}
	return nil
}

// SearchStep is one level the search offered: its rate and its verdict.
type SearchStep struct {
	Rate float64
	Pass bool
}

// Bracket is the highest passing rate of steps and the lowest failing
// rate above it (0 when none).
func Bracket(steps []SearchStep) (pass, fail float64) {
	for _, s := range steps {
		if s.Pass {
			pass = max(pass, s.Rate)
		}
	}
	for _, s := range steps {
		if !s.Pass && s.Rate > pass && (fail == 0 || s.Rate < fail) {
			fail = s.Rate
		}
	}
	return pass, fail
}

// Next is the rate to offer after steps (in run order), or 0 when the
// search has ended.
func (s RateSearch) Next(steps []SearchStep) float64 {
	if len(steps) == 0 {
		return s.Start
	}
	if len(steps) >= s.MaxLevels {
		return 0
	}
	pass, fail := Bracket(steps)
	switch {
	case fail == 0:
		return 2 * pass
	case pass == 0:
		return fail / 2
	case (fail-pass)/pass <= s.Precision:
		return 0
	}
	return (pass + fail) / 2
}

// LevelPass is the search's verdict on one level offered rate: each
// element of repeats holds one repeat's records. why says, when it did
// not pass, what failed first.
func LevelPass(repeats [][]schemas.Record, rate float64, slo schemas.SLO) (pass bool, why string) {
	if len(repeats) == 0 {
		return false, "no repeat was measured"
	}
	for i, recs := range repeats {
		var m schemas.Metrics
		OpenLoop(&m, recs, rate)
		n, failed, met := 0, 0, 0
		for _, r := range recs {
			if r.Phase != schemas.PhaseMeasure {
				continue
			}
			n++
			if !r.OK {
				failed++
			}
		}
		if n == 0 {
			return false, fmt.Sprintf("repeat %d measured no request", i+1)
		}
		if g := Goodput(recs, slo, 1); g != nil {
			met = int(*g)
		}
		switch KeepUpOf(m, float64(failed)/float64(n)) {
		case NotKeptUp:
			return false, fmt.Sprintf("repeat %d did not keep up", i+1)
		case KeepUpNotObserved:
			return false, fmt.Sprintf("repeat %d: keeping up not observed (fewer than %d successes a third)", i+1, KeepUpMinThird)
		}
		if float64(met) < SearchSLOShare*float64(n) {
			return false, fmt.Sprintf("repeat %d: %d of %d requests met the SLO, fewer than %.0f %%", i+1, met, n, 100*SearchSLOShare)
		}
	}
	return true, ""
}
