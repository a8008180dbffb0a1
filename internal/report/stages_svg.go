package report

import (
	"bufio"
	"math"
	"strconv"

	"github.com/benchseal/benchseal/schemas"
)

// Geometry of the stages chart: one panel per target with server stages,
// stacked one above the other on a shared value axis, so that bars of two
// targets compare by height; the legend sits right of the panels as in
// the other charts.
const (
	stagesTop    = 40.0  // first panel's top
	stagesPanel  = 150.0 // panel height: label, plot, level labels
	stagesPlot   = 100.0 // plot height inside a panel
	stagesBottom = 40.0  // below the last panel: the axis title
	stagesMaxBar = 28.0  // widest bar
	panelLabel   = 60    // runes of a panel's target name before "…"
)

func stagesHeight(panels int) float64 {
	return stagesTop + float64(max(panels, 1))*stagesPanel + stagesBottom
}

// stagesSVG draws Stages: for every target with server stages and every
// level, a bar of the mean time per request split into queue, prefill,
// decode, the rest of the server time and client − server (the table's
// medians), each segment titled with its value.
func (v *view) stagesSVG(w *bufio.Writer) {
	var tts []timeTarget
	top := 0.0
	// The p95 of the queue per level, where the server accounted for
	// requests one by one: the bars are means, and a knee shows in the
	// queue's tail before its mean.
	p95 := map[string]map[int]float64{}
	for name, pt := range v.pctTargets() {
		if !pt.perRequest {
			continue
		}
		for _, r := range pt.rows {
			if q := r.stage[schemas.StageQueue]; q.kind == cellValue {
				if p95[name] == nil {
					p95[name] = map[int]float64{}
				}
				p95[name][r.c] = q.p95
				top = math.Max(top, 1000*q.p95)
			}
		}
	}
	for _, tt := range v.timeTargets() {
		if !tt.any {
			continue
		}
		tts = append(tts, tt)
		for _, r := range tt.rows {
			sum := 0.0
			for _, sg := range r.bar() {
				sum += sg.s
			}
			top = math.Max(top, 1000*sum)
		}
	}
	h := stagesHeight(len(tts))
	hs := f1(h)
	id := Stages.id()
	w.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 760 ` + hs + `" width="760" height="` + hs + `" role="img" aria-labelledby="` + id + `-title ` + id + `-desc" font-family="Helvetica, Arial, sans-serif" font-size="12">` + "\n")
	w.WriteString(`<title id="` + id + `-title">` + esc(v.chartTitle(Stages)) + "</title>\n")
	w.WriteString(`<desc id="` + id + `-desc">` + esc(v.tr("One panel per target, one bar per concurrency level: the mean time per request in milliseconds, stacked by stage; the table below gives every number.")) + "</desc>\n")
	w.WriteString(`<rect width="760" height="` + hs + `" fill="#ffffff"/>` + "\n")
	w.WriteString(`<text x="` + f1(plotL) + `" y="24" font-size="15" font-weight="bold" fill="#222222">` + esc(v.chartTitle(Stages)) + "</text>\n")
	xa := newLogAxis(v.levels, plotL, plotR)
	width := stagesMaxBar
	for i := 1; i < len(v.levels); i++ {
		width = math.Min(width, 0.6*(xa.pos(v.levels[i])-xa.pos(v.levels[i-1])))
	}
	width = math.Max(width, 4)
	for i, tt := range tts {
		y0 := stagesTop + float64(i)*stagesPanel
		pt, pb := y0+24, y0+24+stagesPlot
		ya := newLinAxis(top, pb, pt)
		w.WriteString(`<text x="` + f1(plotL) + `" y="` + f1(y0+16) + `" font-weight="bold" fill="#222222">` + esc(clipText(tt.name, panelLabel)) + "<title>" + esc(tt.name) + "</title></text>\n")
		w.WriteString(`<g stroke="#e3e3e3" stroke-width="1">` + "\n")
		for _, tk := range ya.ticks {
			y := f1(ya.pos(tk))
			w.WriteString(`<line x1="` + f1(plotL) + `" y1="` + y + `" x2="` + f1(plotR) + `" y2="` + y + `"/>` + "\n")
		}
		w.WriteString("</g>\n")
		w.WriteString(`<g fill="#444444" text-anchor="end">` + "\n")
		for _, tk := range ya.ticks {
			w.WriteString(`<text x="` + f1(plotL-8) + `" y="` + f1(ya.pos(tk)+4) + `">` + tickLabel(tk, ya.step()) + "</text>\n")
		}
		w.WriteString("</g>\n")
		w.WriteString(`<g fill="#444444" text-anchor="middle">` + "\n")
		for _, c := range v.levels {
			w.WriteString(`<text x="` + f1(xa.pos(c)) + `" y="` + f1(pb+16) + `">` + strconv.Itoa(c) + "</text>\n")
		}
		w.WriteString("</g>\n")
		w.WriteString(`<g stroke="#ffffff" stroke-width="1">` + "\n")
		for _, r := range tt.rows {
			y := 0.0
			x := f1(xa.pos(r.c) - width/2)
			for _, sg := range r.bar() {
				y1, y2 := ya.pos(1000*y), ya.pos(1000*(y+sg.s))
				y += sg.s
				w.WriteString(`<rect x="` + x + `" y="` + f1(y2) + `" width="` + f1(width) + `" height="` + f1(y1-y2) + `" fill="` + sg.colour + `"><title>` +
					esc(v.tr("%s, C = %d: %s %s ms", tt.name, r.c, v.tr(sg.name), num(1000*sg.s))) + "</title></rect>\n")
			}
		}
		w.WriteString("</g>\n")
		if len(p95[tt.name]) > 0 {
			w.WriteString(`<g stroke="#222222" stroke-width="2">` + "\n")
			for _, c := range v.levels {
				if q, ok := p95[tt.name][c]; ok {
					y := f1(ya.pos(1000 * q))
					w.WriteString(`<line x1="` + f1(xa.pos(c)-width/2-3) + `" y1="` + y + `" x2="` + f1(xa.pos(c)+width/2+3) + `" y2="` + y + `"><title>` +
						esc(v.tr("%s, C = %d: %s %s ms", tt.name, c, v.tr("queue p95 (exact)"), num(1000*q))) + "</title></line>\n")
				}
			}
			w.WriteString("</g>\n")
		}
		w.WriteString(`<rect x="` + f1(plotL) + `" y="` + f1(pt) + `" width="` + f1(plotR-plotL) + `" height="` + f1(stagesPlot) + `" fill="none" stroke="#888888"/>` + "\n")
	}
	if len(tts) == 0 {
		w.WriteString(`<text x="` + f1((plotL+plotR)/2) + `" y="` + f1(stagesTop+stagesPanel/2) + `" text-anchor="middle" fill="#888888">` + esc(v.tr("server-side stages not observed")) + `</text>` + "\n")
	}
	w.WriteString(`<text x="` + f1((plotL+plotR)/2) + `" y="` + f1(h-14) + `" text-anchor="middle" fill="#222222">` + esc(v.tr("concurrency (log₂ scale)")) + `</text>` + "\n")
	w.WriteString(`<text transform="translate(18 ` + f1(stagesTop+float64(max(len(tts), 1))*stagesPanel/2) + `) rotate(-90)" text-anchor="middle" fill="#222222">` + esc(v.tr("ms per request (mean)")) + "</text>\n")

	// Legend: the segments some bar has, top to bottom as a bar stacks
	// them.
	used := map[string]bool{}
	for _, tt := range tts {
		for _, r := range tt.rows {
			for _, sg := range r.bar() {
				used[sg.name] = true
			}
		}
	}
	y := stagesTop + 24
	w.WriteString(`<g fill="#222222">` + "\n")
	for i := len(stageSegments) - 1; i >= 0; i-- {
		sg := stageSegments[i]
		if !used[sg.name] {
			continue
		}
		w.WriteString(`<rect x="` + f1(legendX) + `" y="` + f1(y-7) + `" width="14" height="14" fill="` + sg.colour + `"/>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+22) + `" y="` + f1(y+4) + `">` + esc(legendText(v.tr(sg.name))) + "</text>\n")
		y += 22
	}
	if len(p95) > 0 {
		w.WriteString(`<line x1="` + f1(legendX) + `" y1="` + f1(y) + `" x2="` + f1(legendX+14) + `" y2="` + f1(y) + `" stroke="#222222" stroke-width="2"/>` + "\n")
		w.WriteString(`<text x="` + f1(legendX+22) + `" y="` + f1(y+4) + `">` + esc(legendText(v.tr("queue p95 (exact)"))) + "</text>\n")
		y += 22
	}
	if v.repeats > 1 && len(tts) > 0 {
		y += 6
		w.WriteString(`<text x="` + f1(legendX) + `" y="` + f1(y+4) + `">` + esc(v.tr("bars: medians over")) + `</text>` + "\n")
		w.WriteString(`<text x="` + f1(legendX) + `" y="` + f1(y+20) + `">` + esc(v.plural(v.repeats, "%d repeat", "%d repeats")) + `</text>` + "\n")
	}
	w.WriteString("</g>\n")
	v.stamp(w, h)
	w.WriteString("</svg>\n")
}
