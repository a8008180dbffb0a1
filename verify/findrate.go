package verify

import (
	"fmt"
	"strconv"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// KindRateSearch is a rate search (run --find-rate) whose rates do not
// follow from its records by its rule: a level offered at a rate the
// levels before it do not choose, a search that ended early or went on
// past its end, or one over other than one target. FAIL: the rate it
// reports as found was not found by the rule it states.
const KindRateSearch Kind = "rate-search"

// checkRateSearch (check 7) re-derives a rate search's choices: the first
// rate is its start; each level passes or not by claims.LevelPass over its
// sealed records, as run.json's find_rate steps must say, and the next
// rate is claims' RateSearch.Next of the levels so far; after the last level the rule ends the search (a run
// that did not complete may stop sooner). It returns the search's words
// for the check's summary ("" when the run searched nothing).
func checkRateSearch(c *Check, ev *evidence) string {
	p := ev.run.Protocol
	fr := p.FindRate
	if fr == nil {
		return ""
	}
	fail := func(format string, args ...any) string {
		c.add(Finding{Status: Fail, Kind: KindRateSearch, Path: "run.json", Reason: fmt.Sprintf(format, args...)})
		return "; the rate search does not follow from its records"
	}
	s := claims.RateSearch{Start: fr.StartRPS, Precision: fr.Precision, MaxLevels: fr.MaxLevels}
	switch {
	case s.Check() != nil:
		return fail("the rate search's rule cannot search: %v", s.Check())
	case len(ev.run.Targets) != 1:
		return fail("a rate search of %d targets: its rule chooses rates for one", len(ev.run.Targets))
	case p.SLO == nil:
		return fail("a rate search without an SLO: its rule needs one")
	case len(p.RequestRates) == 0 || len(p.RequestRates) > s.MaxLevels:
		return fail("%d rates offered by a search of at most %d levels", len(p.RequestRates), s.MaxLevels)
	}
	t := ev.run.Targets[0].Name
	var steps []claims.SearchStep
	for li, rate := range p.RequestRates {
		if want := s.Next(steps); want != rate {
			return fail("level %d offered %s req/s, but the search's rule chooses %s from the levels before it", li+1, fmtRate(rate), fmtRate(want))
		}
		if li >= len(p.Levels) {
			return fail("%d rates for %d levels", len(p.RequestRates), len(p.Levels))
		}
		var repeats [][]schemas.Record
		for rep := 1; rep <= p.Repeats; rep++ {
			recs, ok := ev.records[stepFile(t, p.Levels[li], rep)]
			if !ok {
				if ev.run.Complete {
					return fail("level %d repeat %d has no records: the search's verdict on it cannot be derived", li+1, rep)
				}
				c.warnf("run.json", "the rate search stopped at level %d (the run did not complete): the rate it would have found is not observed", li+1)
				return "; rate search not finished"
			}
			repeats = append(repeats, recs)
		}
		pass, why := claims.LevelPass(repeats, rate, *p.SLO)
		if li >= len(fr.Steps) || fr.Steps[li].Rate != rate || fr.Steps[li].Pass != pass {
			said := "no verdict"
			if li < len(fr.Steps) {
				said = fmt.Sprintf("%s req/s pass %v", fmtRate(fr.Steps[li].Rate), fr.Steps[li].Pass)
			}
			return fail("level %d (%s req/s): run.json's search says %s, its records say pass %v %s", li+1, fmtRate(rate), said, pass, why)
		}
		steps = append(steps, claims.SearchStep{Rate: rate, Pass: pass})
	}
	if len(fr.Steps) != len(steps) {
		return fail("run.json's search lists %d verdicts for %d levels", len(fr.Steps), len(steps))
	}
	if next := s.Next(steps); next != 0 && ev.run.Complete {
		return fail("the search ended after %d levels, but its rule goes on to %s req/s", len(steps), fmtRate(next))
	}
	lo, hi := claims.Bracket(steps)
	return fmt.Sprintf("; the rate search's %d levels follow from their records (highest passing %s req/s, lowest failing above it %s)", len(steps), fmtRate(lo), fmtRate(hi))
}

// fmtRate is a rate as run.json writes it; "none" for 0.
func fmtRate(v float64) string {
	if v == 0 {
		return "none"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
