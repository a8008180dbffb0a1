package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// "Where the time goes": the servers' own account of each request's time
// (claims.json's per-repeat server blocks, read by internal/claims from
// the /metrics scrapes that bracket each step) beside the client's.

// stageCol is a server stage the table shows: a server that exposes no
// histogram of it shows "not observed", said once per target.
type stageCol struct {
	stage string // schemas.Stage*
	name  string // column header (English, translated)
}

// stageCols are the table's server columns in the order a request passes
// them (server e2e first: it is the total the others split). Inference and
// TTFT stay in claims.json: they repeat prefill + decode and queue + prefill.
var stageCols = []stageCol{
	{schemas.StageE2E, "server e2e"},
	{schemas.StageQueue, "queue"},
	{schemas.StagePrefill, "prefill (first forward)"},
	{schemas.StageDecode, "decode"},
}

// kneeShare is where queue time "dominates": above this share of the
// server time, the wait for admission is more than every other server
// stage together, so more concurrency adds waiting, not work.
const kneeShare = 0.5

// cellKind is one of the three states of every cell: a number, not
// observed (nothing to read), or broken (something to read that cannot be
// right).
type cellKind int

const (
	cellNone cellKind = iota
	cellValue
	cellBroken
	// cellApart: both sides were observed but describe different
	// requests (the server's histogram counted more than the client's
	// successes), so their difference means nothing.
	cellApart
)

// stageCell is one cell of the table: a median over repeats in seconds,
// or why there is none.
type stageCell struct {
	kind cellKind
	s    float64
	why  string // English, for cellBroken
	n    int    // repeats the median is over (cellValue)
}

// timeRow is one level of a target.
type timeRow struct {
	c       int
	of      int // the level's repeats
	client  stageCell
	server  stageCell // server e2e, or the HTTP handler standing in
	stage   map[string]stageCell
	rest    stageCell // client − server
	other   float64   // server time no observed stage accounts for (≥ 0)
	carried bool      // some repeat has a server block
	warmups bool      // some repeat's stages include its warm-ups (no scrape after them)
}

// timeTarget is one target's rows and what its server exposed.
type timeTarget struct {
	name    string
	rows    []timeRow
	any     bool              // some repeat of some level has a server block
	exposed map[string]string // stage -> the family that carried it
	http    bool              // the HTTP handler's time stands in for server e2e
}

// median of xs, which it leaves as they are: verdict.Median, the median
// internal/claims takes over repeats.
func median(xs []float64) float64 { return verdict.Median(slices.Clone(xs)) }

func findStage(s *schemas.ServerStages, stage string) *schemas.StageStat {
	for i := range s.Stages {
		if s.Stages[i].Stage == stage {
			return &s.Stages[i]
		}
	}
	return nil
}

// stageOf is the median over reps of a stage's mean. A histogram that
// grew by nothing in a repeat whose requests succeeded, or a mean that is
// not a duration, is broken data; a stage no repeat carries is not
// observed.
func stageOf(reps []*schemas.Metrics, stage string) stageCell {
	var xs []float64
	for _, m := range reps {
		st := findStage(m.Server, stage)
		if st == nil {
			// internal/claims leaves out a family that went down or
			// changed its buckets between the scrapes, and its note
			// names the stage.
			if strings.Contains(m.Server.Note, stage+": not computed") {
				return stageCell{kind: cellBroken, why: "histogram reset during the step"}
			}
			continue
		}
		switch {
		case st.MeanS == nil || st.Count == 0:
			if m.Succeeded > 0 {
				return stageCell{kind: cellBroken, why: "counted no request"}
			}
		case math.IsNaN(*st.MeanS) || math.IsInf(*st.MeanS, 0) || *st.MeanS < 0:
			return stageCell{kind: cellBroken, why: "not a duration"}
		default:
			xs = append(xs, *st.MeanS)
		}
	}
	if len(xs) == 0 {
		return stageCell{}
	}
	return stageCell{kind: cellValue, s: median(xs), n: len(xs)}
}

// timeTargets reads every target's server blocks. Client latency is the
// median of latency_mean_s over the same repeats as the server's stages,
// so that both sides describe the same steps.
func (v *view) timeTargets() []timeTarget {
	var out []timeTarget
	for _, tg := range v.targets {
		tt := timeTarget{name: tg, exposed: map[string]string{}}
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			row := timeRow{c: c, of: len(l.Repeats), stage: map[string]stageCell{}}
			var reps []*schemas.Metrics
			for i := range l.Repeats {
				if m := &l.Repeats[i]; m.Server != nil {
					reps = append(reps, m)
					row.warmups = row.warmups || m.Server.Scope != schemas.ServerScopeMeasured
					for _, st := range m.Server.Stages {
						if _, ok := tt.exposed[st.Stage]; !ok {
							tt.exposed[st.Stage] = st.Family
						}
					}
				}
			}
			if len(reps) == 0 {
				tt.rows = append(tt.rows, row)
				continue
			}
			tt.any, row.carried = true, true
			var lat []float64
			for _, m := range reps {
				if m.LatencyMeanS != nil {
					lat = append(lat, *m.LatencyMeanS)
				}
			}
			if len(lat) > 0 {
				row.client = stageCell{kind: cellValue, s: median(lat), n: len(lat)}
			}
			for _, col := range stageCols[1:] {
				row.stage[col.stage] = stageOf(reps, col.stage)
			}
			row.server = stageOf(reps, schemas.StageE2E)
			if row.server.kind == cellNone {
				if h := stageOf(reps, schemas.StageHTTP); h.kind != cellNone {
					row.server, tt.http = h, true
				}
			}
			if row.server.kind == cellValue {
				// The stages happen inside the server's time: more than
				// it (beyond the rounding of claims.json) cannot be right.
				sum := 0.0
				for _, col := range stageCols[1:] {
					if x := row.stage[col.stage]; x.kind == cellValue {
						sum += x.s
					}
				}
				if sum > row.server.s*1.01+0.001 {
					row.server = stageCell{kind: cellBroken, why: "less than its stages"}
				} else {
					row.other = math.Max(0, row.server.s-sum)
				}
			}
			switch {
			case row.client.kind != cellValue:
				// no successful request: nothing to subtract from
			case row.server.kind == cellBroken:
				row.rest = stageCell{kind: cellBroken, why: "from a broken server time"}
			case row.server.kind == cellValue && countsMore(reps, tt.http):
				row.rest = stageCell{kind: cellApart, why: "the server's mean includes failures or other traffic"}
			case row.server.kind == cellValue:
				d := row.client.s - row.server.s
				if d < -0.0001 {
					row.rest = stageCell{kind: cellBroken, why: "server time exceeds client latency"}
				} else {
					row.rest = stageCell{kind: cellValue, s: math.Max(0, d), n: min(row.client.n, row.server.n)}
				}
			}
			tt.rows = append(tt.rows, row)
		}
		out = append(out, tt)
	}
	return out
}

// countsMore says whether, in some repeat, the server's end-to-end (or
// HTTP handler) histogram counted more requests than the client's
// measured successes: SGLang-Omni's handler histogram counts every answer,
// a shed 500 included, and a fast failure pulls the server's mean below
// the successes' latency (the client's mean), so client − server would
// read as network time what is the failures' speed.
func countsMore(reps []*schemas.Metrics, http bool) bool {
	stage := schemas.StageE2E
	if http {
		stage = schemas.StageHTTP
	}
	for _, m := range reps {
		if st := findStage(m.Server, stage); st != nil && st.Count > float64(m.Succeeded) {
			return true
		}
	}
	return false
}

// anyStages says whether some repeat of some target has a server block.
func anyStages(tts []timeTarget) bool {
	for _, tt := range tts {
		if tt.any {
			return true
		}
	}
	return false
}

// ms formats a cell in milliseconds, with the repeats it rests on when
// fewer than the level's.
func (v *view) ms(x stageCell, of int, none string) string {
	switch x.kind {
	case cellValue:
		s := num(1000 * x.s)
		if x.n < of {
			s += " " + v.tr("(%d of %d repeats)", x.n, of)
		}
		return s
	case cellBroken:
		return v.tr("broken: %s", v.tr(x.why))
	case cellApart:
		return v.tr("not comparable: %s", v.tr(x.why))
	}
	return none
}

func (v *view) timeBreakdown() []block {
	tts := v.timeTargets()
	pts := v.pctTargets()
	if !anyStages(tts) && !anyPerRequest(pts) {
		return nil
	}
	// REPORT.md keeps each target's finding and what is not observed;
	// the tables of means and histogram percentiles are report.html's.
	out := []block{
		heading{2, v.tr("Where the time goes")},
		htmlOnly{para{spans: []span{t(v.tr("Mean ms per request from the servers' /metrics histograms, medians over repeats; client − server is network, upload and client.") + v.perRequestAdvice(pts))}}},
		mdOnly{para{spans: []span{t(v.tr("Per-stage tables (mean ms per request, from the servers' /metrics histograms): report.html.") + v.perRequestAdvice(pts))}}},
	}
	if v.stageBars(tts) {
		out = append(out, htmlOnly{v.fig(Stages)})
	}
	header := []string{v.levelHeader(), v.tr("client latency")}
	for _, col := range stageCols {
		header = append(header, v.tr(col.name))
	}
	header = append(header, v.tr("client − server"))
	for _, tt := range tts {
		lead := []span{b(tt.name + ":"), t(" ")}
		if !tt.any {
			sp := append(lead, t(v.tr("server-side stages not observed: its /metrics exposed no stage histogram during measurement.")))
			if k := v.throughputKnee(tt.name, nil, pts[tt.name]); k != "" {
				sp = append(sp, t(" "+k))
			}
			out = append(out, para{spans: sp})
			out = append(out, v.percentilesBlocks(tt.name, tt.exposed, pts[tt.name])...)
			continue
		}
		// One story per target: where a throughput knee attributes the
		// latency growth, a queue that "never exceeds half" the server
		// time is not said beside it (the growth's shares say what grew).
		k := v.throughputKnee(tt.name, &tt, pts[tt.name])
		qs, never := v.queueKnee(tt, pts[tt.name])
		if k != "" && never {
			qs = ""
		}
		if qs == v.tr("where queue time dominates is not observed (no queue-time histogram).") {
			qs = "" // the "Not observed: queue, …" sentence below says it
		}
		// The paragraph's sentences, each once, joined by one space.
		var said []string
		add := func(x string) {
			if x != "" {
				said = append(said, x)
			}
		}
		add(qs)
		add(k)
		if tt.http {
			add(v.tr("Only its HTTP handler's duration (%s) is observed, standing in for server e2e.", tt.exposed[schemas.StageHTTP]))
		}
		var names []string
		for _, col := range stageCols {
			if _, ok := tt.exposed[col.stage]; ok || (col.stage == schemas.StageE2E && tt.http) || perRequestHas(pts[tt.name], col.stage) {
				continue
			}
			names = append(names, v.tr(col.name))
		}
		if len(names) > 0 {
			add(v.tr("Not observed: %s (no such histogram).", strings.Join(names, ", ")))
		}
		s := append(lead, t(strings.Join(said, " ")))
		var rows [][]string
		for _, r := range tt.rows {
			row := []string{v.levelLabel(r.c)}
			if !r.carried {
				row = append(row, "—")
				for range stageCols {
					row = append(row, v.tr("not observed"))
				}
				rows = append(rows, append(row, "—"))
				continue
			}
			row = append(row, v.ms(r.client, r.of, "—"), v.ms(r.server, r.of, v.tr("not observed")))
			for _, col := range stageCols[1:] {
				row = append(row, v.ms(r.stage[col.stage], r.of, v.tr("not observed")))
			}
			rest := "—"
			if r.client.kind == cellValue && r.server.kind == cellNone {
				rest = v.tr("not observed")
			}
			rows = append(rows, append(row, v.ms(r.rest, r.of, rest)))
		}
		var read []string
		for _, col := range append(slices.Clone(stageCols), stageCol{stage: schemas.StageHTTP}) {
			if f, ok := tt.exposed[col.stage]; ok && !slices.Contains(read, f) {
				read = append(read, f)
			}
		}
		caption := v.tr("%s, ms per request; read from %s.", tt.name, strings.Join(read, ", "))
		var warm []string
		for _, r := range tt.rows {
			if r.warmups {
				warm = append(warm, strconv.Itoa(r.c))
			}
		}
		if len(warm) > 0 {
			caption += " " + v.tr("At C = %s the server's stages include the warm-up requests (no scrape after them); the client's latency does not.", strings.Join(warm, ", "))
		}
		for _, r := range tt.rows {
			if !r.carried {
				caption += " " + v.tr("\"not observed\" on a whole row: no scrape bracketed that level's measured phase.")
				break
			}
		}
		hd := header
		if tt.http {
			hd = slices.Clone(header)
			hd[2] = v.tr("server e2e (HTTP handler)")
		}
		hd, rows, dropped := dropEmptyColumns(hd, rows, 2, v.tr("not observed"))
		var unsaid []string
		for _, d := range dropped {
			if !slices.Contains(names, d) {
				unsaid = append(unsaid, d)
			}
		}
		if len(unsaid) > 0 {
			caption += " " + v.tr("Not observed at any level: %s.", strings.Join(unsaid, ", "))
		}
		out = append(out, para{spans: s}, htmlOnly{table{caption: caption, header: hd, right: allRight(len(hd)), rows: rows}})
		out = append(out, v.percentilesBlocks(tt.name, tt.exposed, pts[tt.name])...)
	}
	return out
}

// percentilesBlocks is percentiles' blocks, report.html's only where
// they are the histograms' upper bounds: exact per-request percentiles,
// and why the per-request join failed, stay in REPORT.md.
func (v *view) percentilesBlocks(name string, exposed map[string]string, pt *pctTarget) []block {
	bs := v.percentiles(name, exposed, pt)
	if pt != nil && (pt.perRequest || pt.unjoined > 0) {
		return bs
	}
	return htmlOnlyAll(bs)
}

// perRequestHas says the requests joined by request id carry stage st at
// some level: the stage is observed, though no histogram carries it.
func perRequestHas(pt *pctTarget, st string) bool {
	if pt == nil || !pt.perRequest {
		return false
	}
	for _, r := range pt.rows {
		if r.stage[st].kind == cellValue {
			return true
		}
	}
	return false
}

// dropEmptyColumns removes the columns from index from on whose every
// cell is one of empty (a stage the server never exposed, said once in the
// paragraph above the table): a column of "not observed" says nothing a
// sentence does not. It returns the dropped columns' names, for the
// caller to say; a table with no row keeps its columns.
func dropEmptyColumns(header []string, rows [][]string, from int, empty ...string) ([]string, [][]string, []string) {
	if len(rows) == 0 {
		return header, rows, nil
	}
	var keep []int
	var dropped []string
	for i := range header {
		all := i >= from
		for _, r := range rows {
			if i < len(r) && !slices.Contains(empty, r[i]) {
				all = false
				break
			}
		}
		if !all {
			keep = append(keep, i)
		} else {
			dropped = append(dropped, header[i])
		}
	}
	pick := func(xs []string) []string {
		out := make([]string, 0, len(keep))
		for _, i := range keep {
			if i < len(xs) {
				out = append(out, xs[i])
			}
		}
		return out
	}
	out := make([][]string, len(rows))
	for j, r := range rows {
		out[j] = pick(r)
	}
	return pick(header), out, dropped
}

// perRequestAdvice says once how to get exact percentiles where some
// target's come from the histograms: "" where every target's are per
// request (or none has any).
func (v *view) perRequestAdvice(pts map[string]*pctTarget) string {
	for _, tg := range v.targets {
		if pt := pts[tg]; pt != nil && !pt.perRequest {
			return " " + v.tr("Exact percentiles need per-request evidence (run --otlp-listen for vLLM, --server-events or --launch for SGLang-Omni).")
		}
	}
	return ""
}

// knee says where queue time first exceeds kneeShare of the server time,
// and whether it stays so at every higher level; or that it never does,
// with its largest share; or what is missing to tell.
func (v *view) knee(tt timeTarget, pt *pctTarget) string {
	s, _ := v.queueKnee(tt, pt)
	return s
}

// queueKnee is knee's sentence, and whether it says queue time never
// dominated (though requests waited): the sentence a throughput knee's
// attribution of the latency growth replaces.
func (v *view) queueKnee(tt timeTarget, pt *pctTarget) (string, bool) {
	if _, ok := tt.exposed[schemas.StageQueue]; !ok {
		if s, never := v.kneePerRequest(pt); s != "" {
			return s, never
		}
		return v.tr("where queue time dominates is not observed (no queue-time histogram)."), false
	}
	first, best := -1, -1
	stays := true
	share := func(r timeRow) float64 { return r.stage[schemas.StageQueue].s / r.server.s }
	for i, r := range tt.rows {
		if r.stage[schemas.StageQueue].kind != cellValue || r.server.kind != cellValue || !(r.server.s > 0) {
			continue
		}
		if best < 0 || share(r) > share(tt.rows[best]) {
			best = i
		}
		switch {
		case first < 0 && share(r) > kneeShare:
			first = i
		case first >= 0 && share(r) <= kneeShare:
			stays = false
		}
	}
	switch {
	case best < 0:
		return v.tr("where queue time dominates is not observed (no level has both queue and server time)."), false
	case first < 0 && tt.rows[best].stage[schemas.StageQueue].s == 0:
		return v.tr("requests never waited in the queue at any level measured."), false
	case first < 0:
		r := tt.rows[best]
		return v.tr("queue time never exceeds half the server time; its largest share is %s ms of %s ms at C = %d.", num(1000*r.stage[schemas.StageQueue].s), num(1000*r.server.s), r.c), true
	}
	r := tt.rows[first]
	q, srv := num(1000*r.stage[schemas.StageQueue].s), num(1000*r.server.s)
	if stays {
		return v.tr("from C = %d, queue time dominates: %s ms of %s ms server time.", r.c, q, srv), false
	}
	return v.tr("at C = %d queue time first dominates (not at every higher level): %s ms of %s ms server time.", r.c, q, srv), false
}

// kneePerRequest is the knee read from the requests joined by request id
// (their median queue against their median server time), for a server
// that exposes no queue histogram but left per-request evidence; "" when
// there is none; never when it says the queue never dominated.
func (v *view) kneePerRequest(pt *pctTarget) (s string, never bool) {
	if pt == nil || !pt.perRequest {
		return "", false
	}
	for _, r := range pt.rows {
		q := r.stage[schemas.StageQueue]
		if q.kind != cellValue || r.server.kind != cellValue || !(r.server.p50 > 0) || q.p50 <= kneeShare*r.server.p50 {
			continue
		}
		return v.tr("from the requests joined by request id: at C = %d the median request's queue time dominates: %s ms of %s ms server time.", r.c, num(1000*q.p50), num(1000*r.server.p50)), false
	}
	return v.tr("from the requests joined by request id: the median request's queue time never exceeds half its server time."), true
}

// stageCaveats names every broken cell: data that cannot be right belongs
// on the first screen, not only in its table.
func (v *view) stageCaveats() [][]span {
	var where []string
	pts := v.pctTargets()
	for _, tt := range v.timeTargets() {
		broken := map[int][]string{}
		for _, r := range tt.rows {
			for _, x := range []stageCell{r.server, r.stage[schemas.StageQueue], r.stage[schemas.StagePrefill], r.stage[schemas.StageDecode], r.rest} {
				if x.kind == cellBroken {
					broken[r.c] = append(broken[r.c], x.why)
				}
			}
		}
		// The per-request percentiles' own broken cells (a request whose
		// server time exceeds its client latency, above all).
		if pt := pts[tt.name]; pt != nil && pt.perRequest {
			for _, r := range pt.rows {
				for _, x := range []pctCell{r.server, r.stage[schemas.StageQueue], r.stage[schemas.StagePrefill], r.stage[schemas.StageDecode], r.rest} {
					if x.kind == cellBroken {
						broken[r.c] = append(broken[r.c], x.why)
					}
				}
			}
		}
		for _, c := range v.levels {
			seen := map[string]bool{}
			for _, why := range broken[c] {
				if !seen[why] && why != "from a broken server time" {
					seen[why] = true
					where = append(where, v.tr("%s at C = %d (%s)", tt.name, c, v.tr(why)))
				}
			}
		}
	}
	if len(where) == 0 {
		return nil
	}
	return [][]span{{b(v.tr("Server stages broken:")), t(" " + v.tr("%s; see \"Where the time goes\" in report.html. The server's histograms disagree with themselves or with the client's records there, so those cells show no number.", strings.Join(where, "; ")))}}
}

// stagesNotObserved is the evidence's line when no target's claims carry
// a server block: what is missing and how to provide it.
func (v *view) stagesNotObserved() []block {
	if anyStages(v.timeTargets()) || anyPerRequest(v.pctTargets()) {
		return nil
	}
	return []block{para{spans: []span{b(v.tr("Server-side stages:")), t(" " + v.tr("not observed: claims.json has no server block (no target's /metrics exposed a stage histogram during measurement, or the run predates them), so where each request's time went inside the server is not shown. vLLM exposes them by default (vllm:request_queue_time_seconds, vllm:e2e_request_latency_seconds and others), SGLang with --enable-metrics (sglang:queue_time_seconds, sglang:e2e_request_latency_seconds), SGLang-Omni its HTTP handler's duration when its metrics are on (sglang_omni_http_request_duration_seconds)."))}}}
}

// segment is one part of a stacked bar.
type segment struct {
	name   string // legend label (English)
	colour string
	s      float64
}

// The stages' colours: Okabe–Ito, the queue in vermillion (it is what the
// knee is about), the client's share in grey (not the server's).
var stageSegments = []segment{
	{name: "queue", colour: "#D55E00"},
	{name: "prefill", colour: "#0072B2"},
	{name: "decode", colour: "#56B4E9"},
	{name: "server, not split", colour: "#009E73"},
	{name: "client − server", colour: "#BBBBBB"},
}

// bar is a row's stacked segments, bottom first, absent ones left out.
func (r timeRow) bar() []segment {
	var out []segment
	for i, k := range []string{schemas.StageQueue, schemas.StagePrefill, schemas.StageDecode} {
		if x := r.stage[k]; x.kind == cellValue && x.s > 0 {
			sg := stageSegments[i]
			sg.s = x.s
			out = append(out, sg)
		}
	}
	if r.server.kind == cellValue && r.other > 0 {
		sg := stageSegments[3]
		sg.s = r.other
		out = append(out, sg)
	}
	if r.rest.kind == cellValue && r.rest.s > 0 {
		sg := stageSegments[4]
		sg.s = r.rest.s
		out = append(out, sg)
	}
	return out
}

// stageBars says whether some row has a bar to draw.
func (v *view) stageBars(tts []timeTarget) bool {
	for _, tt := range tts {
		for _, r := range tt.rows {
			if len(r.bar()) > 0 {
				return true
			}
		}
	}
	return false
}

// ChartsOf is the charts the report of in shows: Charts, Stages when
// some server exposed stage histograms with a number to draw, and
// OpenLatency and Goodput for an open loop.
func ChartsOf(in Input) []Chart {
	v := newView(in)
	out := slices.Clone(Charts)
	if v.stageBars(v.timeTargets()) {
		out = append(out, Stages)
	}
	if v.open() {
		out = append(out, OpenLatency, Goodput)
	}
	return v.withTaskChart(out)
}
