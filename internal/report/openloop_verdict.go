package report

import (
	"math"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// The open loop's verdict rule. Throughput says nothing in an open loop
// (every target is offered the same rate), so "better" is what the user
// of the level sees: with an SLO, goodput at it (the successes meeting
// every limit per second; a failure is goodput lost, so failures do not
// make a side not comparable); without one, the latency from the planned
// arrival (p50, lower is better), compared only at rates both targets
// kept up with (claims.KeepUpOf): above its knee a target's latency
// measures how long the level lasted, not the server. Each level is
// verdict.Compare over the repeats' figures, the closed loop's rule: the
// repeats overlapping, one repeat, or a lead within the minimum effect
// claim no lead.

// openSide is target tg at level l with the repeats' figure of the open
// loop's basis (higher is better): goodput, or 1 / latency p50 from
// arrival.
func (v *view) openSide(tg string, l *schemas.LevelClaims) verdict.Side {
	s := v.side(tg, l)
	s.Latencies, s.Unsteady = nil, nil
	s.Repeats = s.Repeats[:0]
	goodput := v.in.Run.Protocol.SLO != nil
	if goodput {
		s.Failed = 0
	}
	for _, m := range l.Repeats {
		x := math.NaN()
		switch {
		case goodput && m.Goodput != nil:
			x = *m.Goodput
		case !goodput && m.ArrivalLatencyP50S != nil && *m.ArrivalLatencyP50S > 0:
			x = 1 / *m.ArrivalLatencyP50S
		}
		s.Repeats = append(s.Repeats, x)
	}
	return s
}

// openConclusion compares every pair of targets at every offered rate
// they share, by the open loop's rule.
func (v *view) openConclusion() []block {
	if len(v.targets) < 2 {
		return nil
	}
	out := []block{heading{2, v.tr("Conclusion")}}
	for i := 0; i < len(v.targets); i++ {
		for j := i + 1; j < len(v.targets); j++ {
			out = append(out, v.openPair(v.targets[i], v.targets[j])...)
		}
	}
	if r := v.in.Verify; r != nil {
		if c := r.Check(verify.CheckFairness); c != nil && c.Status >= verify.Warn {
			out = append(out, para{warn: true, spans: []span{b(v.tr("Not shown fair:")), t(" " + v.tr("benchseal verify found differences or gaps in how the targets were set up (see the caveats below); a lead may come from the setup, not the engine."))}})
		}
	}
	var rule string
	if v.in.Run.Protocol.SLO != nil {
		rule = v.tr("Open loop: every target was offered the same rates, so throughput does not rank them; better is more goodput at the SLO (%s, from the planned arrival) at the same offered rate. The ratio is the first-named target's median goodput over repeats over the second's (above 1× the first is better); a failed request is goodput lost, not a reason to leave the level out.", v.sloText())
	} else {
		rule = v.tr("Open loop: every target was offered the same rates, so throughput does not rank them; without an SLO (run --slo), better is a lower latency from the planned arrival (median of the repeats' p50) at a rate both targets kept up with; above a target's knee its latency measures how long the level lasted, not the server, so no lead is claimed there. The ratio is the second-named target's latency over the first's (above 1× the first is faster).")
	}
	rule += v.tr(" The interval is a seeded bootstrap over repeats only; overlapping repeats show no difference; one repeat claims no lead; a target whose server counted cache hits although every request was distinct, or that answered from its cache in a run without perturbation, is not comparable.")
	if v.in.Run.Protocol.SLO == nil {
		rule += v.tr(" A target that failed more than 1 % of its requests is not comparable.")
	}
	rule += v.tr(" A lead of at most %s (the minimum effect: the drift between runs of the same setup) is within noise, not a lead.", pctShort(verdict.Options{MinEffect: v.in.MinEffect}.Effect()))
	return append(out, para{spans: []span{t(rule)}})
}

// openPair is the verdict of a against bn at each offered rate.
func (v *view) openPair(a, bn string) []block {
	goodput := v.in.Run.Protocol.SLO != nil
	var rows [][]string
	var parts []string
	lo, hi := 0, 0
	for _, c := range v.byRate() {
		la, lb := v.lookup(a, c), v.lookup(bn, c)
		if la == nil || lb == nil {
			continue
		}
		lo, hi = repeatSpan(lo, hi, la, lb)
		r, _ := v.rateOf(c)
		rate := rateText(r)
		if !goodput {
			if w := v.notSustained(a, la, bn, lb); w != "" {
				rows = append(rows, []string{rate, "—", "—", w})
				parts = append(parts, v.tr("at %s req/s: %s", rate, w))
				continue
			}
		}
		res := verdict.Compare(v.openSide(a, la), v.openSide(bn, lb), verdict.Options{MinEffect: v.in.MinEffect})
		iv := "—"
		if !math.IsNaN(res.Lo) {
			iv = ratioText(res.Lo) + "–" + ratioText(res.Hi)
		}
		w := v.words(res, a, bn)
		rows = append(rows, []string{rate, ratioText(res.Ratio), iv, w})
		parts = append(parts, v.tr("at %s req/s: %s", rate, w))
	}
	if len(rows) == 0 {
		return nil
	}
	what := v.tr("Latency from arrival, %s vs %s:", a, bn)
	ratio := bn + " / " + a
	if goodput {
		what, ratio = v.tr("Goodput at the SLO, %s vs %s:", a, bn), a+" / "+bn
	}
	ivh := v.tr("rough interval from %d–%d repeats", lo, hi)
	switch {
	case lo >= 3:
		ivh = v.tr("95 % interval over repeats")
	case lo == hi:
		ivh = v.plural(lo, "rough interval from %d repeat", "rough interval from %d repeats")
	}
	return []block{
		para{spans: []span{b(what), t(" " + strings.Join(parts, v.tr("; ")) + v.tr("."))}},
		table{
			header: []string{v.tr("offered req/s"), ratio, ivh, v.tr("verdict")},
			right:  []bool{true, true, true, false},
			rows:   rows,
		},
	}
}

// notSustained words why a level is not compared by latency: a target
// did not keep up with it, or whether it did is not observed; "" when
// both kept up.
func (v *view) notSustained(a string, la *schemas.LevelClaims, bn string, lb *schemas.LevelClaims) string {
	for _, s := range []struct {
		name string
		l    *schemas.LevelClaims
	}{{a, la}, {bn, lb}} {
		switch v.keepUp(s.l) {
		case claims.NotKeptUp:
			return v.tr("not compared: %s did not keep up", s.name)
		case claims.KeepUpNotObserved:
			return v.tr("not compared: whether %s kept up is not observed", s.name)
		}
	}
	return ""
}
