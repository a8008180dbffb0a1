package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// A task's own part of the report, drawn from its roles (internal/task):
// its words where the tasks differ (word), and its figures (a Figurer's)
// in one section of one table, with the chart of its figure where it
// names one (TaskFigure) and the caveats of what it did not observe.

// TaskFigure is the chart of the run's task's figure (task.FigureChart:
// its p50 solid, its p99 dashed, vs concurrency); only a run whose task
// names one, and where some target observed it, has it (ChartsOf).
const TaskFigure = Goodput + 1

// word is the task's phrase p in the report's language.
func (v *view) word(p task.Phrase) string { return p.In(v.in.Lang) }

// wordf is the task's phrase p in the report's language, applied to args.
func (v *view) wordf(p task.Phrase, args ...any) string { return fmt.Sprintf(v.word(p), args...) }

// figurer is the run's task's Figurer, nil when it has none.
func (v *view) figurer() task.Figurer { return task.FiguresOf(v.task) }

// chartSpec is the run's task's chart, nil when it names none.
func (v *view) chartSpec() *task.FigureChart {
	if f := v.figurer(); f != nil {
		return f.Chart()
	}
	return nil
}

// chartSeen says some level of some target observed the chart's p50.
func (v *view) chartSeen() bool {
	ch := v.chartSpec()
	if ch == nil {
		return false
	}
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.Figure(ch.P50) != nil {
				return true
			}
		}
	}
	return false
}

// withTaskChart is charts with TaskFigure where the run has it.
func (v *view) withTaskChart(charts []Chart) []Chart {
	if v.chartSeen() {
		return append(charts, TaskFigure)
	}
	return charts
}

// textCorpus is the summary's corpus sentence for a task whose items are
// texts to speak: texts, their characters and reference clips.
func (v *view) textCorpus() []span {
	r := v.in.Run
	var secs float64
	chars, spoken := 0, 0
	for _, cl := range r.Corpus {
		secs += cl.Seconds
		if cl.Speak != "" {
			spoken++
			chars += utf8.RuneCountInString(cl.Speak)
		}
	}
	s := v.tr(". The corpus has %s to speak, each with a reference clip (%s s of reference audio in all)", v.plural(len(r.Corpus), "%d text", "%d texts"), num(secs))
	switch n := v.noInputItems(); {
	case n == len(r.Corpus):
		s = v.tr(". The corpus has %s to speak, each in a named voice without a reference clip", v.plural(len(r.Corpus), "%d text", "%d texts"))
	case n > 0:
		s = v.tr(". The corpus has %s to speak, %d with a reference clip (%s s of reference audio in all), %d in a named voice without one", v.plural(len(r.Corpus), "%d text", "%d texts"), len(r.Corpus)-n, num(secs), n)
	}
	switch spoken {
	case len(r.Corpus):
		s += v.tr("; %d characters of text.", chars)
	case 0:
		s += v.tr("; run.json does not record the texts (a run made before it did), so no seconds per character.")
	default:
		s += v.tr("; run.json records %d of the texts (%d characters).", spoken, chars)
	}
	return []span{t(s)}
}

// figureCell is a figure's cell: seconds as milliseconds, "—" for nil.
func figureCell(unit string, p *float64) string {
	switch {
	case p == nil:
		return "—"
	case unit == "s":
		return num(*p * 1e3)
	}
	return num(*p)
}

// figureHeader is a figure's column: its label and the unit it is shown
// in (seconds as ms; a ratio, "x", without one).
func (v *view) figureHeader(s task.FigureSpec) string {
	switch s.Unit {
	case "s":
		return v.word(s.Label) + " ms"
	case "x", "":
		return v.word(s.Label)
	}
	return v.word(s.Label) + " " + s.Unit
}

// figures is the task's section: per level and target the medians over
// repeats of its figures, "not observed" where a level with successes did
// not observe one, and its chart. Requests per second and failures are
// the throughput and errors tables', said there once.
func (v *view) figures() []block {
	f := v.figurer()
	if f == nil || len(v.levels) == 0 {
		return nil
	}
	specs := f.Figures()
	header := []string{v.tr("concurrency"), v.tr("target")}
	for _, s := range specs {
		header = append(header, v.figureHeader(s))
	}
	var rows [][]string
	unseen := false
	for _, c := range v.levels {
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			m := &l.Median
			row := []string{strconv.Itoa(c), tg}
			if _, ok, _ := tally(l); ok == 0 {
				for range specs {
					row = append(row, "—")
				}
			} else {
				for _, s := range specs {
					cell := figureCell(s.Unit, m.Figure(s.Name))
					if m.Figure(s.Name) == nil {
						unseen, cell = true, v.tr("not observed")
					}
					row = append(row, cell)
				}
			}
			rows = append(rows, row)
		}
	}
	right := allRight(len(header))
	right[1] = false
	caption := v.wordf(f.Caption(), v.plural(v.repeats, "%d repeat", "%d repeats"))
	if ch := f.Chart(); unseen && ch != nil && ch.UnseenCaption != nil {
		caption += v.word(ch.UnseenCaption)
	}
	out := []block{heading{2, v.word(f.Section())}}
	full := table{caption: caption, header: header, right: right, rows: rows}
	md, ok := v.chartColumns(f, full)
	if v.chartSeen() {
		out = append(out, v.fig(TaskFigure))
	}
	if !ok {
		return append(out, full)
	}
	if unseen && f.Chart().UnseenCaption != nil {
		md.caption += v.word(f.Chart().UnseenCaption)
	}
	// REPORT.md has the chart's two figures; report.html every one.
	return append(out, htmlOnly{full}, mdOnly{md})
}

// chartColumns is the task table cut to its chart's columns (its p50
// and p99: time to first audio for tts), REPORT.md's; false where the
// task has no chart or the table no more columns than those.
func (v *view) chartColumns(f task.Figurer, full table) (table, bool) {
	ch := f.Chart()
	specs := f.Figures()
	if ch == nil || len(specs) <= 2 {
		return table{}, false
	}
	keep := []int{0, 1}
	for i, s := range specs {
		if s.Name == ch.P50 || s.Name == ch.P99 {
			keep = append(keep, i+2)
		}
	}
	if len(keep) == 2 {
		return table{}, false
	}
	pick := func(r []string) []string {
		out := make([]string, len(keep))
		for i, k := range keep {
			out[i] = r[k]
		}
		return out
	}
	md := table{header: pick(full.header), right: make([]bool, len(keep))}
	for i, k := range keep {
		md.right[i] = full.right[k]
	}
	for _, r := range full.rows {
		md.rows = append(md.rows, pick(r))
	}
	md.caption = v.tr("Medians over %s. Every figure, and what each means: report.html.", v.plural(v.repeats, "%d repeat", "%d repeats"))
	return md, true
}

// taskCaveats: what the run's task cannot show. Its chart's figure not
// observed for a target with successes; what a perturbed run still sent
// as it is.
func (v *view) taskCaveats() [][]span {
	var items [][]span
	if ch := v.chartSpec(); ch != nil && ch.Unseen != nil {
		var whole []string
		for _, tg := range v.targets {
			ok, seen := false, false
			for _, c := range v.levels {
				if l := v.lookup(tg, c); l != nil {
					_, s, _ := tally(l)
					ok = ok || s > 0
					seen = seen || l.Median.Figure(ch.P50) != nil
				}
			}
			if ok && !seen {
				whole = append(whole, tg)
			}
		}
		if len(whole) > 0 {
			items = append(items, []span{b(v.word(ch.UnseenLabel)), t(" " + v.wordf(ch.Unseen, strings.Join(whole, ", ")))})
		}
	}
	if w := v.tw; v.in.Run.Protocol.Perturb && w.Unperturbed != nil {
		items = append(items, []span{b(v.word(w.UnperturbedLabel)), t(" " + v.word(w.Unperturbed))})
	}
	// That no output is sealed is said once, in the evidence (Words.Unshown).
	return items
}

// taskChartGetters are TaskFigure's series: each target's p50 (solid) and
// p99 (dashed), levels without the figure observed left out.
func (v *view) taskChartGetters() [2]func(m *schemas.Metrics) float64 {
	ch := v.chartSpec()
	if ch == nil {
		none := func(*schemas.Metrics) float64 { return math.NaN() }
		return [2]func(m *schemas.Metrics) float64{none, none}
	}
	return [2]func(m *schemas.Metrics) float64{
		func(m *schemas.Metrics) float64 { return deref(m.Figure(ch.P50)) },
		func(m *schemas.Metrics) float64 { return deref(m.Figure(ch.P99)) },
	}
}
