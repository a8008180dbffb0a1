package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// An open loop's part of the report: its table per level and target, the
// verdict on whether each target kept up (claims.KeepUpOf) and its knee,
// the first offered rate a target did not keep up with, and the charts
// against offered rate (OpenLatency, Goodput).

// rateOf is the offered rate of level c: run.json's request rate of that
// level, else the claims' offered rate; ok is false when neither says.
func (v *view) rateOf(c int) (float64, bool) {
	p := v.in.Run.Protocol
	if i := slices.Index(p.Levels, c); i >= 0 && i < len(p.RequestRates) {
		return p.RequestRates[i], true
	}
	for _, tg := range v.targets {
		if l := v.lookup(tg, c); l != nil && l.Median.OfferedRate != nil {
			return *l.Median.OfferedRate, true
		}
	}
	return 0, false
}

// byRate is the levels in ascending order of offered rate (levels whose
// rate is unknown last, by level).
func (v *view) byRate() []int {
	out := slices.Clone(v.levels)
	slices.SortStableFunc(out, func(a, b int) int {
		ra, oka := v.rateOf(a)
		rb, okb := v.rateOf(b)
		switch {
		case oka && okb:
			return cmp.Compare(ra, rb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return cmp.Compare(a, b)
	})
	return out
}

// rateText is an offered rate as run.json and the protocol line write it.
func rateText(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

func (v *view) open() bool { return v.in.Run.Protocol.Mode == schemas.ModeOpen }

// keepUp is the verdict on target tg at level c.
func (v *view) keepUp(l *schemas.LevelClaims) claims.KeepUp {
	return claims.KeepUpOf(l.Median, failedShare(l))
}

// keptUpCell words a level's verdict with the figure it rests on.
func (v *view) keptUpCell(l *schemas.LevelClaims) string {
	g := "—"
	if x := l.Median.ArrivalGrowth; x != nil {
		g = ratioText(*x)
	}
	switch v.keepUp(l) {
	case claims.KeptUp:
		return v.tr("yes (%s)", g)
	case claims.NotKeptUp:
		if f := failedShare(l); f > claims.KeepUpMaxFailed {
			return v.tr("no (%s failed)", pctShort(f))
		}
		return v.tr("no (%s)", g)
	}
	return v.tr("not observed")
}

// openKnee words, for target tg, the first offered rate it did not keep up
// with, or that it kept up with every rate observed, or that none was
// observed.
func (v *view) openKnee(tg string) string {
	var kept, unseen []string
	for _, c := range v.byRate() {
		l := v.lookup(tg, c)
		if l == nil {
			continue
		}
		r, _ := v.rateOf(c)
		rate := rateText(r)
		switch v.keepUp(l) {
		case claims.NotKeptUp:
			why := ""
			if f := failedShare(l); f > claims.KeepUpMaxFailed {
				why = v.tr("%s of its requests failed", pctShort(f))
			} else {
				why = v.tr("its latency from arrival grew %s from the first third of the level to the last", ratioText(*l.Median.ArrivalGrowth))
			}
			s := v.tr("%s did not keep up at %s req/s (%s)", tg, rate, why)
			if len(kept) > 0 {
				s += v.tr("; it kept up at %s req/s", kept[len(kept)-1])
			} else {
				s += v.tr("; it kept up with no rate offered below it")
			}
			return s + v.tr(".")
		case claims.KeptUp:
			kept = append(kept, rate)
		default:
			unseen = append(unseen, rate)
		}
	}
	switch {
	case len(kept) == 0:
		return v.tr("Whether %s kept up is not observed: no level had %d successful requests in each third (run more requests per level).", tg, claims.KeepUpMinThird)
	case len(unseen) > 0:
		return v.tr("%s kept up at %s req/s; not observed at %s req/s (fewer than %d successful requests in a third).", tg, strings.Join(kept, ", "), strings.Join(unseen, ", "), claims.KeepUpMinThird)
	}
	return v.tr("%s kept up at every rate offered, up to %s req/s.", tg, kept[len(kept)-1])
}

// openLoop is an open-loop run's section: per level and target, the
// offered and achieved send rates, the send lateness, the latency from
// the planned arrival (medians over repeats) and whether it kept up; each
// target's knee; the charts against offered rate. Nothing for a closed
// loop.
func (v *view) openLoop() []block {
	if !v.open() {
		return nil
	}
	ms := func(p *float64) string {
		if p == nil {
			return "—"
		}
		return num(*p * 1e3)
	}
	header := []string{v.tr("level"), v.tr("target"), v.tr("offered req/s"), v.tr("sent req/s"), v.tr("lateness p50 ms"), v.tr("lateness p99 ms"), v.tr("from arrival p50 ms"), v.tr("from arrival p99 ms")}
	slo := v.in.Run.Protocol.SLO
	caption := ""
	if slo != nil {
		header = append(header, v.tr("goodput req/s"))
		caption = v.tr(" Goodput: successful requests per second meeting %s, from the planned arrival.", v.sloText())
	}
	header = append(header, v.tr("kept up"))
	var rows [][]string
	for _, c := range v.byRate() {
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			m := l.Median
			row := []string{strconv.Itoa(c), tg, "—", "—"}
			if m.OfferedRate != nil {
				row[2] = num(*m.OfferedRate)
			}
			if m.SendRate != nil {
				row[3] = num(*m.SendRate)
			}
			row = append(row, ms(m.LatenessP50S), ms(m.LatenessP99S), ms(m.ArrivalLatencyP50S), ms(m.ArrivalLatencyP99S))
			if slo != nil {
				g := "—"
				if m.Goodput != nil {
					g = num(*m.Goodput)
				}
				row = append(row, g)
			}
			rows = append(rows, append(row, v.keptUpCell(l)))
		}
	}
	right := allRight(len(header))
	right[1], right[len(right)-1] = false, false
	caption += v.tr(" Kept up: whether the latency from arrival of the level's last third of requests (by planned time) stayed within %s× the first third's median, with at most %s of requests failed; the figure is that ratio (median over repeats).", num(claims.KeepUpGrowth), pctShort(claims.KeepUpMaxFailed))
	out := []block{heading{2, v.tr("Open loop")}, table{
		caption: v.tr("Open loop, medians over %s: the rate offered and the rate the measured requests were sent at; send lateness (sent − planned: time a request waited in the client, for the clock or a --max-concurrency slot); latency of successful requests from their planned arrival (the user's view, the client's queue included) beside the table above's, from the send.", v.plural(v.repeats, "%d repeat", "%d repeats")) + caption,
		header:  header, right: right, rows: rows}}
	knees := make([]string, len(v.targets))
	for i, tg := range v.targets {
		knees[i] = v.openKnee(tg)
	}
	out = append(out, para{spans: kv(v.tr("Kept up"), t(strings.Join(knees, " ")))})
	return append(out, v.fig(OpenLatency), v.fig(Goodput))
}

// sloText words run.json's SLO ("e2e ≤ 500 ms and ttfb ≤ 200 ms").
func (v *view) sloText() string {
	slo := v.in.Run.Protocol.SLO
	if slo == nil {
		return ""
	}
	var lim []string
	if slo.E2ES != nil {
		lim = append(lim, "e2e ≤ "+num(*slo.E2ES*1e3)+" ms")
	}
	if slo.TTFBS != nil {
		lim = append(lim, "ttfb ≤ "+num(*slo.TTFBS*1e3)+" ms")
	}
	return strings.Join(lim, v.tr(" and "))
}

// levelLabel names level c in a table's first column: its concurrency in
// a closed loop, its offered rate in an open loop (where c only numbers
// the level).
func (v *view) levelLabel(c int) string {
	if v.in.Run.Protocol.Mode == schemas.ModeOpen {
		if r, ok := v.rateOf(c); ok {
			return strconv.FormatFloat(r, 'g', 4, 64)
		}
	}
	return strconv.Itoa(c)
}

// levelHeader is that column's name.
func (v *view) levelHeader() string {
	if v.in.Run.Protocol.Mode == schemas.ModeOpen {
		return v.tr("offered req/s")
	}
	return v.tr("concurrency")
}

// atLevels words where something held, from levelLabel's labels: "at C
// = 1, 4" in a closed loop, "at 20, 60 req/s" in an open one.
func (v *view) atLevels(labels []string) string {
	if v.in.Run.Protocol.Mode == schemas.ModeOpen {
		return v.tr("at %s req/s", strings.Join(labels, ", "))
	}
	return v.tr("at C = %s", strings.Join(labels, ", "))
}
