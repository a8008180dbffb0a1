package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// The rate search (Plan.Search, run --find-rate): after each level the
// runner reads back the records it wrote, judges the level by
// claims.LevelPass and offers claims' RateSearch.Next as the next level,
// writing run.json again so that it lists every rate offered so far. A
// verifier applies the same rule to the sealed records.

// SearchMinRequests is the fewest measured requests a searched level
// needs: three thirds of claims.KeepUpMinThird, or no level could pass.
const SearchMinRequests = 3 * claims.KeepUpMinThird

func (p Plan) normalizeSearch() error {
	s := p.Search
	if s == nil {
		return nil
	}
	if err := s.Check(); err != nil {
		return planErrorf("rate search: %v", err)
	}
	switch {
	case len(p.Targets) != 1:
		return planErrorf("a rate search measures one target (%d given): each would need rates of its own; search them one at a time", len(p.Targets))
	case len(p.Rates) != 1 || p.Rates[0] != s.Start:
		return planErrorf("a rate search starts at one rate, its start (%v req/s)", s.Start)
	case p.SLO == nil:
		return planErrorf("a rate search looks for the highest rate that meets an SLO: give one (--slo e2e=500ms)")
	case p.Ramp != nil:
		return planErrorf("a rate search's warm-ups arrive at each level's rate: give no warm-up ramp")
	case len(p.Requests) != 1 || p.Requests[0] < SearchMinRequests:
		return planErrorf("a rate search needs one measured request count of at least %d (three thirds of %d successes, to see whether a level kept up)", SearchMinRequests, claims.KeepUpMinThird)
	}
	return nil
}

// searchCapacity is p with as many levels as its search may offer (the
// rates unknown), for what is sized before the sweep: the variants each
// clip needs, the progress's steps. p itself when it searches nothing.
func (p Plan) searchCapacity() Plan {
	if p.Search == nil || len(p.Levels) >= p.Search.MaxLevels {
		return p
	}
	n := p.Search.MaxLevels
	p.Levels, p.Requests, p.Warmup = make([]int, n), slices.Repeat(p.Requests[:1:1], n), slices.Repeat(p.Warmup[:1:1], n)
	for i := range p.Levels {
		p.Levels[i] = i + 1
	}
	return p
}

// searchNext judges level li from its records, records the verdict in
// run.json's protocol.find_rate steps and, when the search goes on, adds
// the next level to the plan and run.json; false when it ends (or the
// level cannot be read back: the run then says why).
func (r *runner) searchNext(li int) bool {
	p := r.plan
	t := p.Targets[0].Name
	var repeats [][]schemas.Record
	for rep := 1; rep <= p.Repeats; rep++ {
		f, err := os.Open(filepath.Join(r.d.Path, filepath.FromSlash(schemas.RecordsPath(t, p.Levels[li], rep))))
		if err != nil {
			r.d.Event(t, "rate_search", fmt.Sprintf("the search ends: level %d's records cannot be read back: %v", li+1, err))
			return false
		}
		recs, err := claims.ReadRecords(f.Name(), f)
		f.Close()
		if err != nil {
			r.d.Event(t, "rate_search", fmt.Sprintf("the search ends: level %d's records cannot be read back: %v", li+1, err))
			return false
		}
		repeats = append(repeats, recs)
	}
	pass, why := claims.LevelPass(repeats, p.Rates[li], *p.SLO)
	r.search = append(r.search, claims.SearchStep{Rate: p.Rates[li], Pass: pass})
	fr := r.d.Run.Protocol.FindRate
	fr.Steps = append(fr.Steps, schemas.FindRateStep{Rate: p.Rates[li], Pass: pass, Why: why})
	verdict := "kept up and met the SLO"
	if !pass {
		verdict = "did not pass: " + why
	}
	next := p.Search.Next(r.search)
	rate := strconv.FormatFloat(p.Rates[li], 'g', -1, 64)
	if next == 0 {
		lo, hi := claims.Bracket(r.search)
		r.d.Event(t, "rate_search", fmt.Sprintf("%s req/s %s; the search ends: highest passing rate %s req/s, lowest failing above it %s req/s", rate, verdict, fmtRate(lo), fmtRate(hi)))
		if err := r.writeRun(); err != nil {
			r.fatal = err
		}
		return false
	}
	r.d.Event(t, "rate_search", fmt.Sprintf("%s req/s %s; next %s req/s", rate, verdict, fmtRate(next)))
	r.plan.Rates = append(r.plan.Rates, next)
	r.plan.Levels = append(r.plan.Levels, len(r.plan.Levels)+1)
	r.plan.Requests = append(r.plan.Requests, r.plan.Requests[0])
	r.plan.Warmup = append(r.plan.Warmup, r.plan.Warmup[0])
	pr := &r.d.Run.Protocol
	pr.Levels, pr.Requests, pr.Warmup, pr.RequestRates = r.plan.Levels, r.plan.Requests, r.plan.Warmup, r.plan.Rates
	if err := r.writeRun(); err != nil {
		r.fatal = err
		return false
	}
	return true
}

// fmtRate is a rate as run.json writes it; "none" for 0.
func fmtRate(v float64) string {
	if v == 0 {
		return "none"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
