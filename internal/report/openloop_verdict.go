package report

import (
	"math"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// The open loop's verdict rule. Throughput says nothing in an open loop
// (every target is offered the same rate), so "better" is what the user
// of the level sees. Where one target kept up with a rate
// (claims.KeepUpOf) and the other did not, that is the verdict: "X kept
// up, Y did not (latency from arrival grew N×)", never a ratio, since
// past its knee a target's queue grows through the level and any ratio
// grows with the level's length. At a rate both kept up with, the latency
// from the planned arrival (p50, lower is better) is compared, and with
// an SLO goodput at it too (the successes meeting every limit per
// second; a failure is goodput lost, so failures do not make a side not
// comparable there). Each comparison is verdict.Compare over the
// repeats' figures, the closed loop's rule: the repeats overlapping, one
// repeat, or a lead within the minimum effect claim no lead.

// openSide is target tg at level l with the repeats' figure of one of
// the open loop's bases (higher is better): goodput, or 1 / latency p50
// from arrival.
func (v *view) openSide(tg string, l *schemas.LevelClaims, goodput bool) verdict.Side {
	s := v.side(tg, l)
	s.Latencies, s.Unsteady = nil, nil
	s.Repeats = s.Repeats[:0]
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
	out := append([]block{heading{2, v.tr("Conclusion")}}, v.verdictPairs()...)
	out = append(out, v.fairnessLine(false)...)
	rule := v.tr("Rule: every target was offered the same rates, so throughput does not rank them. Where one kept up with a rate and the other did not, that is the verdict, not a ratio (past its knee a queue grows through the level, and any ratio with the level's length). At rates both kept up with: latency from the planned arrival (the second-named target's median p50 over the first's: above 1× the first is faster)")
	if v.in.Run.Protocol.SLO != nil {
		rule += v.tr(", and goodput at the SLO (%s; the first-named over the second; a failed request is goodput lost)", v.sloText())
	}
	rule += v.tr(". Each by the closed loop's rule over this run's repeats: no lead from overlapping repeats or one repeat; a lead of at most %s (the minimum effect, for the drift between runs) is within noise; cache hits on distinct requests, or cached answers without perturbation, are not comparable.", pctShort(verdict.Options{MinEffect: v.in.MinEffect}.Effect()))
	return append(out, para{spans: []span{t(rule)}})
}

// openPair is the verdict of a against bn at each offered rate.
func (v *view) openPair(a, bn string) []block {
	goodput := v.in.Run.Protocol.SLO != nil
	var rows [][]string
	var rates, words []string // each compared rate and its verdict, grouped below
	lo, hi := 0, 0
	var basis verdict.Basis
	opts := verdict.Options{MinEffect: v.in.MinEffect}
	cells := func(r verdict.Result) []string {
		iv := "—"
		if !math.IsNaN(r.Lo) {
			iv = ratioText(r.Lo) + "–" + ratioText(r.Hi)
		}
		return []string{ratioText(r.Ratio), iv}
	}
	for _, c := range v.byRate() {
		la, lb := v.lookup(a, c), v.lookup(bn, c)
		if la == nil || lb == nil {
			continue
		}
		lo, hi = repeatSpan(lo, hi, la, lb)
		r, _ := v.rateOf(c)
		rate := rateText(r)
		row := []string{rate}
		if w := v.notSustained(a, la, bn, lb); w != "" {
			n := 2 // ratio and interval of each comparison
			if goodput {
				n = 4
			}
			for range n {
				row = append(row, "—")
			}
			rows = append(rows, append(row, w))
			rates, words = append(rates, rate), append(words, w)
			continue
		}
		lat := verdict.Compare(v.openSide(a, la, false), v.openSide(bn, lb, false), opts)
		basis = max(basis, lat.Basis)
		w := v.words(lat, a, bn)
		if goodput {
			gp := verdict.Compare(v.openSide(a, la, true), v.openSide(bn, lb, true), opts)
			basis = max(basis, gp.Basis)
			row = append(row, cells(gp)...)
			w = v.tr("goodput: %s; latency from arrival: %s", v.words(gp, a, bn), w)
		}
		row = append(row, cells(lat)...)
		rows = append(rows, append(row, w))
		rates, words = append(rates, rate), append(words, w)
	}
	// Runs of rates with the same words are one part: "at 20, 40, 80
	// req/s: …".
	var parts []string
	for i := 0; i < len(words); {
		j := i + 1
		for j < len(words) && words[j] == words[i] {
			j++
		}
		parts = append(parts, v.tr("at %s req/s: %s", strings.Join(rates[i:j], ", "), words[i]))
		i = j
	}
	if len(rows) == 0 {
		return nil
	}
	ivh := v.intervalHeader(basis, lo, hi)
	header := []string{v.tr("offered req/s")}
	if goodput {
		header = append(header, v.tr("goodput %s", a+" / "+bn), ivh)
	}
	header = append(header, v.tr("latency %s", bn+" / "+a), ivh, v.tr("verdict"))
	right := allRight(len(header))
	right[len(right)-1] = false
	return []block{
		para{spans: []span{b(v.tr("Open loop, %s vs %s:", a, bn)), t(" " + strings.Join(parts, v.tr("; ")) + v.tr("."))}},
		table{header: header, right: right, rows: rows},
	}
}

// notSustained words why a level is not compared by its figures: one
// target kept up and the other did not ("a kept up, b did not (latency
// from arrival grew 3.00×)"), neither did, or whether one did is not
// observed; "" when both kept up.
func (v *view) notSustained(a string, la *schemas.LevelClaims, bn string, lb *schemas.LevelClaims) string {
	ka, kb := v.keepUp(la), v.keepUp(lb)
	for _, s := range []struct {
		name string
		k    claims.KeepUp
	}{{a, ka}, {bn, kb}} {
		if s.k == claims.KeepUpNotObserved {
			return v.tr("not compared: whether %s kept up is not observed", s.name)
		}
	}
	switch {
	case ka == claims.NotKeptUp && kb == claims.NotKeptUp:
		return v.tr("neither kept up (%s: %s; %s: %s)", a, v.grewText(la), bn, v.grewText(lb))
	case ka == claims.NotKeptUp:
		return v.tr("%s kept up, %s did not (%s)", bn, a, v.grewText(la))
	case kb == claims.NotKeptUp:
		return v.tr("%s kept up, %s did not (%s)", a, bn, v.grewText(lb))
	}
	return ""
}

// grewText words why a level was not kept up with: its failed share, or
// the growth of its latency from arrival.
func (v *view) grewText(l *schemas.LevelClaims) string {
	if f := failedShare(l); f > claims.KeepUpMaxFailed {
		return v.tr("%s of its requests failed", pctShort(f))
	}
	return v.tr("latency from arrival grew %s", ratioText(*l.Median.ArrivalGrowth))
}

// openLead is 1 where la leads lb in an open loop (it kept up and lb did
// not, or both kept up and its median latency from arrival is lower), -1
// where lb leads, 0 otherwise: the order the conclusion names targets in.
func (v *view) openLead(la, lb *schemas.LevelClaims) int {
	ka, kb := v.keepUp(la) == claims.KeptUp, v.keepUp(lb) == claims.KeptUp
	pa, pb := la.Median.ArrivalLatencyP50S, lb.Median.ArrivalLatencyP50S
	switch {
	case ka && !kb:
		return 1
	case kb && !ka:
		return -1
	case !ka || pa == nil || pb == nil:
		return 0
	case *pa < *pb:
		return 1
	case *pb < *pa:
		return -1
	}
	return 0
}
