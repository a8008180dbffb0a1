package claims

import (
	"slices"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// Sealed replay comparisons: what benchseal replay --seal signs in the
// predicate (schemas.PredicateReplay), and how a verifier re-derives it.

// ReplayPredicate is the comparison of a replay (diffs, from Compare with
// tol) as the predicate of its sealed bundle holds it.
func ReplayPredicate(of schemas.PredicateReplayOf, tol Tolerance, diffs []Difference) schemas.PredicateReplay {
	rule := TailRule
	if tol.AllTails {
		rule = ""
	}
	figures := ""
	if tol.Figures {
		figures = FiguresRule
	}
	p := schemas.PredicateReplay{Of: of, Tolerance: schemas.ReplayTolerance{Relative: tol.Relative, QualityPoints: tol.QualityPoints, TailRule: rule, FiguresRule: figures},
		Comparison: make([]schemas.ReplayFigure, 0, len(diffs)), Differ: Differing(diffs), Verdict: schemas.Reproduced}
	for _, d := range diffs {
		p.Comparison = append(p.Comparison, schemas.ReplayFigure{Target: d.Target, Concurrency: d.Concurrency, Metric: d.Metric,
			Sealed: d.Sealed, Replayed: d.Replayed, Change: d.Change, ChangeUnit: d.ChangeUnit, Verdict: string(d.Verdict), Reason: d.Reason})
	}
	switch {
	case p.Differ > 0:
		p.Verdict = schemas.NotReproduced
	case slices.ContainsFunc(diffs, func(d Difference) bool { return d.Verdict == NotComparable }):
		p.Verdict = schemas.NotComparableReplay
	}
	return p
}

// MarkNotComparable turns every DIFF of a figure into NOT-COMPARABLE when
// the replay ran on other hardware (hw: schemas.ReplayDiff.HardwareDiffers
// of its env/replay-diff.json), with the hardware named, and returns how
// many it turned. A target or level on one side only (Metric "") stays a
// DIFF: no hardware explains it. replay and verify both call it, so a
// sealed comparison re-derives with its NOT-COMPARABLE verdicts.
func MarkNotComparable(diffs []Difference, hw []string) int {
	if len(hw) == 0 {
		return 0
	}
	n := 0
	for i := range diffs {
		if diffs[i].Verdict != Diff || diffs[i].Metric == "" {
			continue
		}
		diffs[i].Verdict = NotComparable
		why := "not comparable on hardware: " + strings.Join(hw, "; ")
		if diffs[i].Reason != "" {
			why = diffs[i].Reason + "; " + why
		}
		diffs[i].Reason = why
		n++
	}
	return n
}

// ReplayTolerance is the tolerance a sealed comparison was judged with: a
// replay sealed before the tail rule (no tail_rule) judged every
// percentile by the tolerance alone; one sealed before the task's figures
// were compared (no figures_rule) compared none.
func ReplayTolerance(p schemas.PredicateReplay) Tolerance {
	return Tolerance{Relative: p.Tolerance.Relative, QualityPoints: p.Tolerance.QualityPoints, AllTails: p.Tolerance.TailRule == "",
		Figures: p.Tolerance.FiguresRule == FiguresRule}
}

// SealedSide rebuilds, from a sealed comparison's figures, the medians of
// the original's claims that it was compared with, as far as Compare reads
// them: every figure's sealed value, and each level's requests taken from
// the replay's same level (a replay sends the protocol's requests, so they
// are the original's). Compare(SealedSide(p, replay), replay, tol) gives p's
// figures again exactly when every figure's change and verdict follow from
// its two values: what a verifier without the original bundle can hold
// the sealed comparison to.
func SealedSide(p schemas.PredicateReplay, replay schemas.Claims) schemas.Claims {
	requests := map[string]map[int]int{}
	for _, t := range replay.Targets {
		requests[t.Target] = map[int]int{}
		for _, l := range t.Levels {
			requests[t.Target][l.Concurrency] = l.Median.Requests
		}
	}
	var out schemas.Claims
	target := func(name string) *schemas.TargetClaims {
		for i := range out.Targets {
			if out.Targets[i].Target == name {
				return &out.Targets[i]
			}
		}
		out.Targets = append(out.Targets, schemas.TargetClaims{Target: name})
		return &out.Targets[len(out.Targets)-1]
	}
	level := func(t *schemas.TargetClaims, c int) *schemas.LevelClaims {
		for i := range t.Levels {
			if t.Levels[i].Concurrency == c {
				return &t.Levels[i]
			}
		}
		t.Levels = append(t.Levels, schemas.LevelClaims{Concurrency: c, Median: schemas.Metrics{Requests: requests[t.Target][c]}})
		return &t.Levels[len(t.Levels)-1]
	}
	for _, f := range p.Comparison {
		switch f.Reason {
		case "target not in the sealed claims", "level not in the sealed claims":
			continue // the replay's side only
		}
		t := target(f.Target)
		if f.Metric == "" {
			level(t, f.Concurrency)
			continue
		}
		m := &level(t, f.Concurrency).Median
		v := ptr2(f.Sealed)
		switch f.Metric {
		case "req_per_s":
			if v != nil {
				m.ReqPerS = *v
			}
		case "rtfx":
			m.RTFx = v
		case "latency_p50_s":
			m.LatencyP50S = v
		case "latency_p99_s":
			m.LatencyP99S = v
		case "wer":
			m.Quality = v
		case "succeeded":
			if v != nil {
				m.Succeeded = int(*v)
			}
		case "failed":
			if v != nil {
				m.Failed = int(*v)
			}
		default:
			if v != nil && metricIsFigure(f.Metric) {
				if m.Figures == nil {
					m.Figures = map[string]float64{}
				}
				m.Figures[f.Metric] = *v
			}
		}
	}
	return out
}
