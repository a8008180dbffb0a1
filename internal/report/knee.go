package report

import (
	"math"
	"strings"
)

// The knee as an engineer reads it: the first level where throughput
// stops scaling with concurrency while latency grows. In a closed loop at
// twice a server's running limit the queue equals the service time, so a
// rule of "queue above half the server time" cannot fire there; the
// throughput that stops growing can.
const (
	// kneeScaling: throughput grows by less than this share of the
	// concurrency step (from C = 32 to 64, a step of +100 %, less than
	// +25 %).
	kneeScaling = 0.25
	// kneeLatency: while latency (the median over repeats of the mean
	// latency of successful requests) grows by more than this share.
	kneeLatency = 0.10
)

// throughputKnee names the knee of target tg and attributes the latency
// growth between the two levels to the stages that grew: from the
// requests joined by request id where sealed (their medians), from the
// histograms otherwise (their means), "not observed" where neither
// carries a stage. "" when no level is a knee.
func (v *view) throughputKnee(tg string, tt *timeTarget, pt *pctTarget) string {
	// Medians over repeats, taken here as claims takes them (the
	// summary rows of claims.json are field by field the same).
	type point struct {
		c        int
		rps, lat float64
	}
	var prev *point
	for _, c := range v.levels {
		l := v.lookup(tg, c)
		if l == nil {
			continue
		}
		var rps, lat []float64
		for _, m := range l.Repeats {
			if m.Succeeded > 0 && m.LatencyMeanS != nil {
				rps, lat = append(rps, m.ReqPerS), append(lat, *m.LatencyMeanS)
			}
		}
		if len(rps) == 0 {
			continue
		}
		p := &point{c, median(rps), median(lat)}
		if prev != nil && prev.rps > 0 && prev.lat > 0 {
			step := float64(p.c)/float64(prev.c) - 1
			dr, dl := p.rps/prev.rps-1, p.lat/prev.lat-1
			if step > 0 && dr < kneeScaling*step && dl > kneeLatency {
				return v.tr("The knee: from C = %d to %d, throughput %s, latency %s; %s.", prev.c, p.c, signedPct(dr), signedPct(dl),
					v.kneeStages(prev.c, p.c, tt, pt))
			}
		}
		prev = p
	}
	return ""
}

// kneeStages attributes the growth of latency between levels a and b.
func (v *view) kneeStages(a, b int, tt *timeTarget, pt *pctTarget) string {
	if pt != nil && pt.perRequest {
		ra, rb := pctRowAt(pt, a), pctRowAt(pt, b)
		if ra != nil && rb != nil && ra.client.kind == cellValue && rb.client.kind == cellValue {
			if s := v.explain(rb.client.p50-ra.client.p50, v.tr("medians of the requests joined by request id"), func(st string) (float64, bool) {
				x, y := ra.stage[st], rb.stage[st]
				return y.p50 - x.p50, x.kind == cellValue && y.kind == cellValue
			}); s != "" {
				return s
			}
		}
	}
	if tt != nil {
		ra, rb := timeRowAt(tt, a), timeRowAt(tt, b)
		if ra != nil && rb != nil && ra.client.kind == cellValue && rb.client.kind == cellValue {
			if s := v.explain(rb.client.s-ra.client.s, v.tr("means from the servers' histograms"), func(st string) (float64, bool) {
				x, y := ra.stage[st], rb.stage[st]
				return y.s - x.s, x.kind == cellValue && y.kind == cellValue
			}); s != "" {
				return s
			}
		}
	}
	return v.tr("which stage grew is not observed (no stage histogram or per-request evidence at both levels)")
}

func pctRowAt(pt *pctTarget, c int) *pctRow {
	for i := range pt.rows {
		if pt.rows[i].c == c {
			return &pt.rows[i]
		}
	}
	return nil
}

func timeRowAt(tt *timeTarget, c int) *timeRow {
	for i := range tt.rows {
		if tt.rows[i].c == c && tt.rows[i].carried {
			return &tt.rows[i]
		}
	}
	return nil
}

// signedPct words a change as "+98 %" or "−3 %".
func signedPct(x float64) string {
	if x < 0 {
		return "−" + pctShort(math.Abs(x))
	}
	return "+" + pctShort(x)
}

// explain attributes the latency growth grew (seconds) once, to the
// stages whose growth is observed at both levels and "elsewhere" (the
// rest: client − server, server time outside those stages, and, for
// medians, that medians do not add), as shares that add up to 100 %:
// "about all of it is queue (+289 ms of +288 ms)" where one stage grew by
// at least 90 % of it and nothing else by more than 10 %, else "of the
// +336 ms: queue +304 ms (90 %), decode +22.4 ms (7 %), elsewhere +9.60 ms
// (3 %)". "" when no stage is observed. The differences are in
// milliseconds as the tables show them (msNum): float noise of two equal
// means is 0, not -1.5e-13.
func (v *view) explain(grew float64, basis string, growth func(stage string) (float64, bool)) string {
	type part struct {
		name string
		d    float64
	}
	var parts []part
	sum := 0.0
	for _, col := range stageCols[1:] {
		if d, ok := growth(col.stage); ok {
			parts = append(parts, part{v.tr(col.name), d})
			sum += d
		}
	}
	if len(parts) == 0 {
		return ""
	}
	parts = append(parts, part{v.tr("elsewhere"), grew - sum})
	ms := func(d float64) string { return signedMs(1000 * d) }
	if !(grew > 0) {
		return v.tr("the latency did not grow by these figures (%s ms; %s)", ms(grew), basis)
	}
	top := 0
	for i, p := range parts {
		if p.d > parts[top].d {
			top = i
		}
	}
	alone := parts[top].d >= 0.9*grew
	for i, p := range parts {
		if i != top && math.Abs(p.d) > 0.1*grew {
			alone = false
		}
	}
	if alone {
		return v.tr("about all of it is %s (%s ms of %s ms; %s)", parts[top].name, ms(parts[top].d), ms(grew), basis)
	}
	// Whole-percent shares that add up: elsewhere takes what the
	// rounded stages leave.
	var words []string
	left := 100
	for i, p := range parts {
		share := int(math.Round(100 * p.d / grew))
		if i == len(parts)-1 {
			share = left
		}
		left -= share
		if i == len(parts)-1 && share == 0 && math.Abs(p.d) < 0.005*grew {
			continue
		}
		words = append(words, v.tr("%s %s ms (%d %%)", p.name, ms(p.d), share))
	}
	return v.tr("of the %s ms (%s): %s", ms(grew), basis, strings.Join(words, ", "))
}

// signedMs is msNum with its sign: "+289", "−3.20".
func signedMs(ms float64) string {
	s := msNum(ms)
	if s == "0" {
		return s
	}
	if strings.HasPrefix(s, "-") {
		return "−" + s[1:]
	}
	return "+" + s
}

// msNum is num of milliseconds to the microsecond: a magnitude below half
// of one (the noise of subtracting two equal means, 1e-13) is 0.
func msNum(ms float64) string {
	if math.Abs(ms) < 0.0005 {
		return "0"
	}
	return num(ms)
}
