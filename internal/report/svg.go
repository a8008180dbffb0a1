package report

import (
	"bufio"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchseal/benchseal/schemas"
)

// Chart names one of the report's charts.
type Chart int

// The charts, in the order the report shows them.
const (
	Throughput Chart = iota // successful requests per second vs concurrency
	Latency                 // latency p50 (solid) and p99 (dashed) vs concurrency
	RTFx                    // real-time factor vs concurrency
	// Stages is "Where the time goes": the mean time per request split by
	// server stage, stacked, vs concurrency, one panel per target. Only
	// a run whose servers exposed stage histograms has it (ChartsOf).
	Stages
	// OpenLatency is an open loop's latency from the planned arrival, p50
	// (solid) and p99 (dashed), vs offered rate; Goodput its successful
	// requests per second meeting the SLO (every success without one) vs
	// offered rate. Only an open-loop run has them (ChartsOf).
	OpenLatency
	Goodput
)

// Charts lists the charts every report has, for writing them all;
// ChartsOf adds Stages where a run has it.
var Charts = []Chart{Throughput, Latency, RTFx}

// File is the chart's file name next to REPORT.md.
func (c Chart) File() string {
	switch c {
	case Throughput:
		return "throughput.svg"
	case Latency:
		return "latency.svg"
	case RTFx:
		return "rtfx.svg"
	case Stages:
		return "stages.svg"
	case TaskFigure:
		return "task_figure.svg"
	case OpenLatency:
		return "open-latency.svg"
	case Goodput:
		return "goodput.svg"
	}
	return "chart" + strconv.Itoa(int(c)) + ".svg"
}

// Title is the chart's caption (and alt text).
func (c Chart) Title() string {
	switch c {
	case Throughput:
		return "Throughput: successful requests per second vs concurrency"
	case Latency:
		return "Latency p50 (solid) and p99 (dashed) vs concurrency"
	case RTFx:
		return "RTFx: seconds of audio per second vs concurrency"
	case Stages:
		return "Where the time goes: mean time per request by stage"
	case TaskFigure:
		return "The task's figure p50 (solid) and p99 (dashed) vs concurrency"
	case OpenLatency:
		return "Latency from arrival p50 (solid) and p99 (dashed) vs offered rate"
	case Goodput:
		return "Goodput: successful requests per second meeting the SLO vs offered rate"
	}
	return "chart"
}

func (c Chart) id() string { return strings.TrimSuffix(c.File(), ".svg") }

func (v *view) chartTitle(c Chart) string {
	if c == RTFx && v.tw.RTFxChart != nil {
		return v.word(v.tw.RTFxChart)
	}
	if ch := v.chartSpec(); c == TaskFigure && ch != nil {
		return v.word(ch.Title)
	}
	if c == Goodput && v.in.Run.Protocol.SLO == nil {
		return v.tr("Successful requests per second vs offered rate (no SLO: every success counts)")
	}
	if v.againstRate(c) {
		switch c {
		case Throughput:
			return v.tr("%s vs offered rate", v.tr("Throughput: successful requests per second"))
		case Latency:
			return v.tr("%s vs offered rate", v.tr("Latency p50 (solid) and p99 (dashed)"))
		case RTFx:
			return v.tr("%s vs offered rate", v.tr("RTFx: seconds of audio per second"))
		}
	}
	return v.tr(c.Title())
}

// againstRate says chart c plots against offered rate, not concurrency:
// the open loop's own charts, and every chart of an open-loop run, whose
// level numbers name only its records.
func (v *view) againstRate(c Chart) bool {
	return c == OpenLatency || c == Goodput || v.in.Run.Protocol.Mode == schemas.ModeOpen
}

// dashedPair says chart c draws p50 solid and p99 dashed per target.
func (c Chart) dashedPair() bool { return c == Latency || c == OpenLatency || c == TaskFigure }

func (v *view) yLabel(c Chart) string {
	switch c {
	case Throughput:
		return v.tr("requests / s")
	case Latency, OpenLatency:
		return v.tr("latency (s)")
	case Goodput:
		return v.tr("requests / s")
	case TaskFigure:
		if ch := v.chartSpec(); ch != nil {
			return v.word(ch.Axis)
		}
	}
	if v.tw.RTFxAxis != nil {
		return v.word(v.tw.RTFxAxis)
	}
	return v.tr("RTFx (× real time)")
}

// Okabe–Ito, without its yellow (too pale on white).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// Geometry of every chart, in SVG user units.
const (
	svgW, svgH    = 760.0, 400.0
	plotL, plotR  = 72.0, 560.0
	plotT, plotB  = 44.0, 340.0
	legendX       = 584.0
	legendMaxText = 20 // runes of a legend label before it is cut with "…"
	markerGap     = 11 // horizontal distance between targets' markers at one level (markers are 10 wide)
)

// series is one line of a chart: a value and its min–max at each level.
type series struct {
	target string
	colour string
	marker int
	dashed bool
	// dx shifts the series sideways so that markers and whiskers at one
	// level never hide each other (p99 of one target under p50 of
	// another): they sit side by side around the tick.
	dx     float64
	points []point
}

type point struct {
	c           int
	med, lo, hi float64
}

func (v *view) series(ch Chart) []series {
	var out []series
	get := func(f func(m *schemas.Metrics) float64, dashed bool, i int, tg string) series {
		// One slot per target; on the latency chart one per target and
		// percentile, so that p99 sits beside p50 even when they are close.
		slot, slots := float64(i), float64(len(v.targets))
		if ch.dashedPair() {
			slot, slots = 2*slot, 2*slots
			if dashed {
				slot++
			}
		}
		s := series{target: tg, colour: palette[i%len(palette)], marker: i % 4, dashed: dashed,
			dx: (slot - (slots-1)/2) * markerGap}
		levels := v.levels
		if v.againstRate(ch) {
			levels = v.byRate()
		}
		for _, c := range levels {
			if l := v.lookup(tg, c); l != nil {
				if _, ok, _ := tally(l); ok == 0 {
					continue // no successful request: nothing to plot, not 0
				}
				if math.IsNaN(f(&l.Median)) {
					continue // not observed (a task figure of the level): nothing to plot
				}
				s.points = append(s.points, point{c, f(&l.Median), f(&l.Min), f(&l.Max)})
			}
		}
		return s
	}
	for i, tg := range v.targets {
		switch ch {
		case Throughput:
			out = append(out, get(func(m *schemas.Metrics) float64 { return m.ReqPerS }, false, i, tg))
		case RTFx:
			out = append(out, get(func(m *schemas.Metrics) float64 { return deref(m.RTFx) }, false, i, tg))
		case Latency:
			out = append(out,
				get(func(m *schemas.Metrics) float64 { return deref(m.LatencyP50S) }, false, i, tg),
				get(func(m *schemas.Metrics) float64 { return deref(m.LatencyP99S) }, true, i, tg))
		case TaskFigure:
			g := v.taskChartGetters()
			out = append(out, get(g[0], false, i, tg), get(g[1], true, i, tg))
		case OpenLatency:
			out = append(out,
				get(func(m *schemas.Metrics) float64 { return deref(m.ArrivalLatencyP50S) }, false, i, tg),
				get(func(m *schemas.Metrics) float64 { return deref(m.ArrivalLatencyP99S) }, true, i, tg))
		case Goodput:
			if v.in.Run.Protocol.SLO != nil {
				out = append(out, get(func(m *schemas.Metrics) float64 { return deref(m.Goodput) }, false, i, tg))
			} else {
				out = append(out, get(func(m *schemas.Metrics) float64 { return m.ReqPerS }, false, i, tg))
			}
		}
	}
	return out
}

// SVG writes one chart of in as a standalone SVG document.
func SVG(w io.Writer, in Input, ch Chart) error {
	bw := bufio.NewWriter(w)
	newView(in).svg(bw, ch)
	return bw.Flush()
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// esc escapes s for HTML and XML text and attributes. Characters XML 1.0
// forbids (controls, invalid UTF-8) become U+FFFD, so that an SVG file
// stays well-formed whatever a claims.json names its targets.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return html.EscapeString(s)
}

func legendText(s string) string {
	if utf8.RuneCountInString(s) <= legendMaxText {
		return s
	}
	return string([]rune(s)[:legendMaxText-1]) + "…"
}

// svg draws chart ch. The xmlns declaration a separate .svg file needs is
// harmless inline in HTML, so both get the same bytes.
func (v *view) svg(w *bufio.Writer, ch Chart) {
	if ch == Stages {
		v.stagesSVG(w)
		return
	}
	ss := v.series(ch)
	top := 0.0
	for _, s := range ss {
		for _, p := range s.points {
			for _, x := range []float64{p.med, p.lo, p.hi} {
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					top = math.Max(top, x)
				}
			}
		}
	}
	xa := v.xAxis(ch)
	ya := newLinAxis(top, plotB, plotT)
	id := ch.id()
	w.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 760 400" width="760" height="400" role="img" aria-labelledby="` + id + `-title" font-family="Helvetica, Arial, sans-serif" font-size="12">` + "\n")
	w.WriteString(`<title id="` + id + `-title">` + esc(v.chartTitle(ch)) + "</title>\n")
	w.WriteString(`<rect width="760" height="400" fill="#ffffff"/>` + "\n")
	w.WriteString(`<text x="` + f1(plotL) + `" y="24" font-size="15" font-weight="bold" fill="#222222">` + esc(v.chartTitle(ch)) + "</text>\n")

	// Value grid and labels.
	w.WriteString(`<g stroke="#e3e3e3" stroke-width="1">` + "\n")
	for _, tk := range ya.ticks {
		y := f1(ya.pos(tk))
		w.WriteString(`<line x1="` + f1(plotL) + `" y1="` + y + `" x2="` + f1(plotR) + `" y2="` + y + `"/>` + "\n")
	}
	for _, c := range v.levels {
		x := f1(xa.pos(c))
		w.WriteString(`<line x1="` + x + `" y1="` + f1(plotT) + `" x2="` + x + `" y2="` + f1(plotB) + `"/>` + "\n")
	}
	w.WriteString("</g>\n")
	suffix := ""
	if ch == RTFx {
		suffix = "×"
	}
	w.WriteString(`<g fill="#444444" text-anchor="end">` + "\n")
	for _, tk := range ya.ticks {
		w.WriteString(`<text x="` + f1(plotL-8) + `" y="` + f1(ya.pos(tk)+4) + `">` + tickLabel(tk, ya.step()) + suffix + "</text>\n")
	}
	w.WriteString("</g>\n")
	w.WriteString(`<g fill="#444444" text-anchor="middle">` + "\n")
	for _, c := range v.levels {
		w.WriteString(`<text x="` + f1(xa.pos(c)) + `" y="` + f1(plotB+18) + `">` + esc(xa.label(c)) + "</text>\n")
	}
	w.WriteString("</g>\n")
	w.WriteString(`<rect x="` + f1(plotL) + `" y="` + f1(plotT) + `" width="` + f1(plotR-plotL) + `" height="` + f1(plotB-plotT) + `" fill="none" stroke="#888888"/>` + "\n")
	w.WriteString(`<text x="` + f1((plotL+plotR)/2) + `" y="` + f1(svgH-14) + `" text-anchor="middle" fill="#222222">` + esc(xa.title) + `</text>` + "\n")
	w.WriteString(`<text transform="translate(18 ` + f1((plotT+plotB)/2) + `) rotate(-90)" text-anchor="middle" fill="#222222">` + esc(v.yLabel(ch)) + "</text>\n")
	if len(ss) == 0 || len(v.levels) == 0 {
		w.WriteString(`<text x="` + f1((plotL+plotR)/2) + `" y="` + f1((plotT+plotB)/2) + `" text-anchor="middle" fill="#888888">` + esc(v.tr("no measured level")) + `</text>` + "\n")
	}

	// Series: whiskers, line, markers.
	for _, s := range ss {
		w.WriteString(`<g stroke="` + s.colour + `" fill="` + s.colour + `">` + "\n")
		w.WriteString("<title>" + esc(s.target) + "</title>\n")
		for _, p := range s.points {
			if !(p.hi > p.lo) {
				continue
			}
			x := xa.pos(p.c) + s.dx
			y0, y1 := f1(ya.pos(p.lo)), f1(ya.pos(p.hi))
			w.WriteString(`<path d="M` + f1(x) + ` ` + y0 + `V` + y1 + `M` + f1(x-4) + ` ` + y0 + `H` + f1(x+4) + `M` + f1(x-4) + ` ` + y1 + `H` + f1(x+4) + `" fill="none" stroke-width="1"/>` + "\n")
		}
		if len(s.points) > 1 {
			var d strings.Builder
			for i, p := range s.points {
				if i == 0 {
					d.WriteString("M")
				} else {
					d.WriteString(" L")
				}
				d.WriteString(f1(xa.pos(p.c)+s.dx) + " " + f1(ya.pos(p.med)))
			}
			dash := ""
			if s.dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			w.WriteString(`<path d="` + d.String() + `" fill="none" stroke-width="2"` + dash + "/>\n")
		}
		for _, p := range s.points {
			w.WriteString(marker(s.marker, xa.pos(p.c)+s.dx, ya.pos(p.med), s.dashed) + "\n")
		}
		w.WriteString("</g>\n")
	}

	// Legend, right of the plot so it never covers data.
	y := plotT + 8
	w.WriteString(`<g fill="#222222">` + "\n")
	for i, tg := range v.targets {
		col := palette[i%len(palette)]
		w.WriteString(`<path d="M` + f1(legendX) + ` ` + f1(y) + `H` + f1(legendX+28) + `" stroke="` + col + `" stroke-width="2"/>` + "\n")
		w.WriteString(`<g stroke="` + col + `" fill="` + col + `">` + marker(i%4, legendX+14, y, false) + "</g>\n")
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+4) + `">` + esc(legendText(tg)) + "<title>" + esc(tg) + "</title></text>\n")
		y += 22
	}
	if ch.dashedPair() && len(v.targets) > 0 {
		y += 6
		w.WriteString(`<path d="M` + f1(legendX) + ` ` + f1(y) + `H` + f1(legendX+28) + `" stroke="#555555" stroke-width="2"/>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+4) + `">p50</text>` + "\n")
		y += 22
		w.WriteString(`<path d="M` + f1(legendX) + ` ` + f1(y) + `H` + f1(legendX+28) + `" stroke="#555555" stroke-width="2" stroke-dasharray="6 4"/>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+4) + `">p99</text>` + "\n")
		y += 22
	}
	if v.repeats > 1 && len(v.targets) > 0 {
		y += 6
		w.WriteString(`<path d="M` + f1(legendX+14) + ` ` + f1(y-6) + `V` + f1(y+6) + `M` + f1(legendX+10) + ` ` + f1(y-6) + `H` + f1(legendX+18) + `M` + f1(legendX+10) + ` ` + f1(y+6) + `H` + f1(legendX+18) + `" stroke="#555555" fill="none"/>` + "\n")
		// Short lines: the legend column is 140 units wide.
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+4) + `">` + esc(v.tr("min–max over")) + `</text>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+20) + `">` + esc(v.plural(v.repeats, "%d repeat", "%d repeats")) + `</text>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+36) + `" y="` + f1(y+36) + `">` + esc(v.tr("line: median")) + `</text>` + "\n")
	}
	w.WriteString("</g>\n")
	v.stamp(w, svgH)
	w.WriteString("</svg>\n")
}

// stamp writes, at the foot of a chart of height h, what the chart is of,
// so that a chart pasted alone keeps it: the bundle's SHA-256 (its first
// 16 hex digits and the file name to find it by, the whole digest in its
// title and in the data-bundle-sha256 attribute) or that the run was not
// sealed, and "simulated" where benchseal's simulator answered for the
// targets (all of them, or those named):
//
//	simulated servers · bundle sha256:9d3b2f6a8c1e4d7b… (evidence.tar.zst)
func (v *view) stamp(w *bufio.Writer, h float64) {
	var parts []string
	if sim := v.simulatedTargets(); len(sim) > 0 && len(sim) == len(v.in.Run.Targets) {
		parts = append(parts, v.tr("simulated servers"))
	} else if len(sim) > 0 {
		parts = append(parts, v.tr("simulated: %s", strings.Join(sim, ", ")))
	}
	sum, title := v.in.BundleSHA256, ""
	if sum != "" {
		name := v.in.BundleName
		if name == "" {
			name = "evidence.tar.zst"
		}
		parts = append(parts, v.tr("bundle sha256:%s… (%s)", sum[:min(16, len(sum))], name))
		title = "<title>sha256:" + esc(sum) + "</title>"
	} else {
		parts = append(parts, v.tr("run directory, not sealed"))
	}
	attr := ""
	if sum != "" {
		attr = ` data-bundle-sha256="` + esc(sum) + `"`
	}
	w.WriteString(`<text class="stamp" x="` + f1(svgW-6) + `" y="` + f1(h-4) + `" text-anchor="end" font-size="10" fill="#666666"` + attr + `>` +
		esc(strings.Join(parts, " · ")) + title + "</text>\n")
}

// marker draws shape k (circle, square, triangle, diamond) centred on x, y;
// hollow markers tell p99 from p50.
func marker(k int, x, y float64, hollow bool) string {
	fill := ""
	if hollow {
		fill = ` fill="#ffffff"`
	}
	switch k {
	case 1:
		return `<rect x="` + f1(x-4) + `" y="` + f1(y-4) + `" width="8" height="8"` + fill + `/>`
	case 2:
		return `<path d="M` + f1(x) + ` ` + f1(y-5) + `L` + f1(x+5) + ` ` + f1(y+4) + `L` + f1(x-5) + ` ` + f1(y+4) + `Z"` + fill + `/>`
	case 3:
		return `<path d="M` + f1(x) + ` ` + f1(y-5) + `L` + f1(x+5) + ` ` + f1(y) + `L` + f1(x) + ` ` + f1(y+5) + `L` + f1(x-5) + ` ` + f1(y) + `Z"` + fill + `/>`
	}
	return `<circle cx="` + f1(x) + `" cy="` + f1(y) + `" r="4"` + fill + `/>`
}
