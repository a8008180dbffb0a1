package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// Drift is the drift between repeated runs of one setup (benchseal
// report RUN --with OTHER...): how far each target's median throughput
// moved between this run and the others at the levels they share. An
// interval over this run's repeats cannot see it, so the conclusion's
// noise bound is the larger of the minimum effect and this drift.
type Drift struct {
	// Runs is how many other runs were measured against this one.
	Runs int
	// Max is the largest drift, a fraction: max(r, 1/r) − 1 of the ratio
	// r of one target's median throughput in another run over this
	// run's, at one level; Target and Level say where.
	Max    float64
	Target string
	Level  int
	// Levels counts the (target, level, run) triples measured.
	Levels int
}

// MeasureDrift measures the drift between base and others, runs of the
// same protocol (ProtocolDiff empty) and the same targets by name. A
// level counts where both runs have it for a target at steady state in
// every repeat (as far as the claims tell) with at most 1 % of requests
// failed: a level short of steady state or failing has no lead to bound
// (its verdict says so), and its throughput is of the ramp or the
// survivors. An open loop offers the same rates to every run: its drift
// is not a throughput's, and it is refused.
func MeasureDrift(base Input, others []Input) (*Drift, error) {
	if base.Run.Protocol.Mode == schemas.ModeOpen {
		return nil, fmt.Errorf("an open-loop run's drift is not measured (its throughput is the offered rate)")
	}
	d := &Drift{Runs: len(others), Max: -1}
	vb := newView(base)
	for i, o := range others {
		if diff := ProtocolDiff(&base.Run, &o.Run); len(diff) > 0 {
			return nil, &ProtocolError{Differences: diff}
		}
		vo := newView(o)
		for _, tg := range vb.targets {
			if !containsName(vo.targets, tg) {
				return nil, fmt.Errorf("run %d of --with has no target %q (it has %s): drift is measured target by target", i+1, tg, strings.Join(vo.targets, ", "))
			}
			for _, c := range vb.levels {
				la, lo := vb.lookup(tg, c), vo.lookup(tg, c)
				if !driftLevel(la, c) || !driftLevel(lo, c) {
					continue
				}
				r := lo.Median.ReqPerS / la.Median.ReqPerS
				x := math.Max(r, 1/r) - 1
				d.Levels++
				if x > d.Max {
					d.Max, d.Target, d.Level = x, tg, c
				}
			}
		}
	}
	if d.Levels == 0 {
		return nil, fmt.Errorf("no level of any target is at steady state, with at most 1 %% failed, in this run and the runs of --with: no drift to measure")
	}
	return d, nil
}

func containsName(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// driftLevel says a level's median throughput can be held against
// another run's: it succeeded, failed at most 1 %, and no repeat is known
// short of steady state.
func driftLevel(l *schemas.LevelClaims, c int) bool {
	if l == nil || !(l.Median.ReqPerS > 0) || failedShare(l) > 0.01 {
		return false
	}
	for _, m := range l.Repeats {
		if steady, known := claims.Steady(m, c); known && !steady {
			return false
		}
	}
	return true
}

// minEffect is the conclusion's noise bound: the minimum effect asked
// for (Input.MinEffect), widened to the drift measured between runs
// where it is larger; widened says it was.
func (v *view) minEffect() (bound float64, widened bool) {
	e := verdict.Options{MinEffect: v.in.MinEffect}.Effect()
	if d := v.in.Drift; d != nil && d.Max > e {
		return d.Max, true
	}
	return e, false
}

// verdictOptions are the closed loop's verdict options: the noise bound
// of minEffect.
func (v *view) verdictOptions() verdict.Options {
	if _, widened := v.minEffect(); widened {
		return verdict.Options{MinEffect: v.in.Drift.Max}
	}
	return verdict.Options{MinEffect: v.in.MinEffect}
}

// noiseRule is the rule's sentence on what is within noise: the
// interval's reach (this run's repeats), and the bound applied, with the
// drift between runs where it was measured.
func (v *view) noiseRule() string {
	bound, widened := v.minEffect()
	d := v.in.Drift
	switch {
	case d == nil:
		return v.tr(" It covers this run's repeats only, not the drift between runs: a lead of at most %s (the minimum effect) is within noise.", pctShort(bound))
	case widened:
		return v.tr(" It covers this run's repeats only; between this run and %s of the same setup (--with) the median throughput drifted by up to %s (%s at C = %d), above the minimum effect (%s): a lead of at most %s is within noise.",
			v.plural(d.Runs, "%d other run", "%d other runs"), pctShort(d.Max), d.Target, d.Level, pctShort(verdict.Options{MinEffect: v.in.MinEffect}.Effect()), pctShort(bound))
	}
	return v.tr(" It covers this run's repeats only; between this run and %s of the same setup (--with) the median throughput drifted by up to %s (%s at C = %d), within the minimum effect: a lead of at most %s is within noise.",
		v.plural(d.Runs, "%d other run", "%d other runs"), pctShort(d.Max), d.Target, d.Level, pctShort(bound))
}
