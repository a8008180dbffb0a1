package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// The percentiles of "Where the time goes": exact over the requests the
// server accounted for one by one (Input.Stages, joined to Input.Records
// by request id) where a run has them, else the histograms'
// p50/p95 upper bounds from claims.json (the bound of the bucket that
// holds each). The means stay the histograms' in either case: they are
// exact from a histogram.

// pctCell is one cell of the percentile table, in seconds, or why there
// is none (the three states of stageCell).
type pctCell struct {
	kind     cellKind
	p50, p95 float64
	why      string // English, for cellBroken
	n        int    // histograms: the repeats the medians are over
	// le marks the histograms' upper bounds ("≤"); inf50/inf95 a
	// percentile above the largest finite bucket in some repeat.
	le, inf50, inf95 bool
}

// pctRow is one level of a target.
type pctRow struct {
	c       int
	of      int // histograms: the level's repeats; per request: its successful measured requests
	joined  int // per request: those joined by request id
	client  pctCell
	server  pctCell
	stage   map[string]pctCell
	rest    pctCell // client − server, per request
	carried bool    // there is something to read at this level
	http    bool    // histograms: the HTTP handler's time stands in for server e2e
}

// pctTarget is one target's percentile rows and where they come from.
type pctTarget struct {
	perRequest bool   // some successful measured request joined by request id
	source     string // schemas.Source* of the joined lines
	joined     int    // requests joined, all levels
	unjoined   int    // per-request lines no record's request id names
	unjoinedSG bool   // and they come from SGLang-Omni's profiler
	http       bool   // the HTTP handler's time stands in for server e2e
	rows       []pctRow
}

// lateSlack is how much longer than the client's latency a server time
// may be before it cannot be right: the two clocks and the time the
// answer's last bytes spend on the wire (verify's check uses the same).
func lateSlack(client float64) float64 { return 0.002 + 0.01*client }

// pcts is the exact p50/p95 (numpy's linear interpolation, as claims.json's
// latency percentiles) of xs; a value that is not a duration is broken,
// none is not observed.
func pcts(xs []float64) pctCell {
	if len(xs) == 0 {
		return pctCell{}
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return pctCell{kind: cellBroken, why: "not a duration"}
		}
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return pctCell{kind: cellValue, p50: claims.Percentile(xs, 50), p95: claims.Percentile(xs, 95), n: len(xs)}
}

// stageField reads a stage's time from a per-request line.
func stageField(l *schemas.RequestStages, stage string) *float64 {
	switch stage {
	case schemas.StageE2E:
		return l.E2ES
	case schemas.StageQueue:
		return l.QueueS
	case schemas.StagePrefill:
		return l.PrefillS
	case schemas.StageDecode:
		return l.DecodeS
	}
	return nil
}

// pctTargets reads each target's percentiles: per request where some
// line joins a successful measured record, else from the histograms.
func (v *view) pctTargets() map[string]*pctTarget {
	type key struct {
		target string
		c      int
	}
	recs := map[string]schemas.Record{} // target + "\x00" + request id
	succ := map[key]int{}
	if v.in.Stages != nil {
		for _, r := range v.in.Records {
			if r.Phase != schemas.PhaseMeasure || !r.OK || r.EndNs < r.StartNs {
				continue
			}
			succ[key{r.Target, r.Concurrency}]++
			if r.RequestID != "" {
				recs[r.Target+"\x00"+r.RequestID] = r
			}
		}
	}
	out := map[string]*pctTarget{}
	for _, tg := range v.targets {
		pt := &pctTarget{}
		out[tg] = pt
		joined := map[int][]joinedLine{}
		seen := map[string]bool{} // a request counts once, whatever its lines
		if v.in.Records != nil {
			for i := range v.in.Stages[tg] {
				l := &v.in.Stages[tg][i]
				r, ok := recs[tg+"\x00"+l.RequestID]
				if l.RequestID == "" || !ok {
					// A warm-up's line names a record too, but not a
					// successful measured one; only a line no record
					// names at all says the join failed.
					if l.RequestID == "" {
						pt.unjoined++
						pt.unjoinedSG = pt.unjoinedSG || l.Source == schemas.SourceProfiler
					}
					continue
				}
				if r.Concurrency != l.Concurrency || r.Repeat != l.Repeat || seen[l.RequestID] {
					continue
				}
				seen[l.RequestID] = true
				joined[r.Concurrency] = append(joined[r.Concurrency], joinedLine{l, float64(r.EndNs-r.StartNs) / 1e9})
				pt.joined++
				if pt.source == "" {
					pt.source = l.Source
				}
			}
		}
		pt.perRequest = pt.joined > 0
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			if pt.perRequest {
				pt.rows = append(pt.rows, perRequestRow(c, succ[key{tg, c}], joined[c]))
			} else {
				row := histRow(c, l)
				pt.http = pt.http || row.http
				pt.rows = append(pt.rows, row)
			}
		}
	}
	return out
}

// joinedLine is a per-request line with its record's latency in seconds.
type joinedLine struct {
	l      *schemas.RequestStages
	client float64
}

// perRequestRow is a level's exact percentiles over its joined requests
// (every repeat together). A server time longer than the client's
// latency for the same request cannot be right: client − server is
// broken then.
func perRequestRow(c, succ int, ls []joinedLine) pctRow {
	row := pctRow{c: c, of: succ, joined: len(ls), stage: map[string]pctCell{}, carried: len(ls) > 0}
	if len(ls) == 0 {
		return row
	}
	var client, rest []float64
	late := false
	for _, j := range ls {
		client = append(client, j.client)
		if e := j.l.E2ES; e != nil {
			d := j.client - *e
			if d < -lateSlack(j.client) {
				late = true
			}
			rest = append(rest, math.Max(0, d))
		}
	}
	row.client = pcts(client)
	for _, col := range stageCols {
		var xs []float64
		for _, j := range ls {
			if x := stageField(j.l, col.stage); x != nil {
				xs = append(xs, *x)
			}
		}
		if col.stage == schemas.StageE2E {
			row.server = pcts(xs)
		} else {
			row.stage[col.stage] = pcts(xs)
		}
	}
	switch {
	case late:
		row.rest = pctCell{kind: cellBroken, why: "server time exceeds client latency"}
	case row.server.kind == cellBroken:
		row.rest = pctCell{kind: cellBroken, why: "from a broken server time"}
	default:
		row.rest = pcts(rest)
	}
	return row
}

// histRow is a level's percentiles from the histograms: the median over
// the repeats with a server block of each repeat's p50 and p95 upper
// bounds (the median of bounds bounds the median: each repeat's
// percentile is at most its bound), and of the client's exact latency
// percentiles over the same repeats. A server without an e2e histogram
// has its HTTP handler's stand in.
func histRow(c int, l *schemas.LevelClaims) pctRow {
	row := pctRow{c: c, of: len(l.Repeats), stage: map[string]pctCell{}}
	var reps []*schemas.Metrics
	for i := range l.Repeats {
		if m := &l.Repeats[i]; m.Server != nil {
			reps = append(reps, m)
		}
	}
	if len(reps) == 0 {
		return row
	}
	row.carried = true
	var p50, p95 []float64
	for _, m := range reps {
		if m.LatencyP50S != nil && m.LatencyP95S != nil {
			p50, p95 = append(p50, *m.LatencyP50S), append(p95, *m.LatencyP95S)
		}
	}
	if len(p50) > 0 {
		row.client = pctCell{kind: cellValue, p50: median(p50), p95: median(p95), n: len(p50)}
	}
	for _, col := range stageCols[1:] {
		row.stage[col.stage] = histPct(reps, col.stage)
	}
	row.server = histPct(reps, schemas.StageE2E)
	if row.server.kind == cellNone {
		if h := histPct(reps, schemas.StageHTTP); h.kind != cellNone {
			row.server, row.http = h, true
		}
	}
	return row
}

// histPct is stageOf for the percentiles' upper bounds. A bound that is
// null while the histogram counted requests lies above its largest
// finite bucket: the cell says so rather than give a bound.
func histPct(reps []*schemas.Metrics, stage string) pctCell {
	var p50, p95 []float64
	for _, m := range reps {
		st := findStage(m.Server, stage)
		if st == nil {
			if strings.Contains(m.Server.Note, stage+": not computed") {
				return pctCell{kind: cellBroken, why: "histogram reset during the step"}
			}
			continue
		}
		inf := math.Inf(1)
		switch {
		case st.Count == 0:
			if m.Succeeded > 0 {
				return pctCell{kind: cellBroken, why: "counted no request"}
			}
		case (st.P50LeS != nil && !isDuration(*st.P50LeS)) || (st.P95LeS != nil && !isDuration(*st.P95LeS)):
			return pctCell{kind: cellBroken, why: "not a duration"}
		default:
			a, b := inf, inf
			if st.P50LeS != nil {
				a = *st.P50LeS
			}
			if st.P95LeS != nil {
				b = *st.P95LeS
			}
			p50, p95 = append(p50, a), append(p95, b)
		}
	}
	if len(p50) == 0 {
		return pctCell{}
	}
	c := pctCell{kind: cellValue, p50: median(p50), p95: median(p95), n: len(p50), le: true}
	c.inf50, c.inf95 = math.IsInf(c.p50, 1), math.IsInf(c.p95, 1)
	return c
}

func isDuration(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// anyPerRequest says whether some target has requests joined by id.
func anyPerRequest(pts map[string]*pctTarget) bool {
	for _, pt := range pts {
		if pt.perRequest {
			return true
		}
	}
	return false
}

// pctMs formats a percentile cell as "p50 / p95" in milliseconds.
func (v *view) pctMs(x pctCell, of int, none string) string {
	switch x.kind {
	case cellValue:
		one := func(sec float64, inf bool) string {
			switch {
			case inf:
				return v.tr("above the buckets")
			case x.le:
				return "≤ " + num(1000*sec)
			}
			return num(1000 * sec)
		}
		s := one(x.p50, x.inf50) + " / " + one(x.p95, x.inf95)
		if of > 0 && x.n < of {
			s += " " + v.tr("(%d of %d repeats)", x.n, of)
		}
		return s
	case cellBroken:
		return v.tr("broken: %s", v.tr(x.why))
	}
	return none
}

// oneBucketCell marks a cell of a column said in one sentence
// (oneBucket), for dropEmptyColumns to drop.
const oneBucketCell = "\x00one bucket"

// bucketGroup is server columns whose histogram percentiles are one
// upper bound b, p50 and p95 alike, at every level.
type bucketGroup struct {
	b      float64
	stages []string
}

// oneBucket groups, by bound, the server columns of a target's histogram
// percentiles (not per request) whose every cell with a value is one
// upper bound b, p50 and p95 alike, at every level, with no cell broken
// and every level carried; all says that every server column with a
// value is such a column. Stages are in column order.
func oneBucket(pt *pctTarget) (groups []bucketGroup, all bool) {
	if pt.perRequest {
		return nil, false
	}
	for _, r := range pt.rows {
		if !r.carried {
			return nil, false
		}
	}
	all = true
	for _, col := range stageCols {
		b, one, seen := 0.0, true, false
		for _, r := range pt.rows {
			c := r.server
			if col.stage != schemas.StageE2E {
				c = r.stage[col.stage]
			}
			switch {
			case c.kind == cellNone:
				continue
			case c.kind != cellValue || !c.le || c.inf50 || c.inf95 || c.p50 != c.p95 || (seen && c.p50 != b):
				one = false
			}
			b, seen = c.p50, true
		}
		switch {
		case !seen:
		case !one:
			all = false
		default:
			if k := slices.IndexFunc(groups, func(g bucketGroup) bool { return g.b == b }); k >= 0 {
				groups[k].stages = append(groups[k].stages, col.stage)
			} else {
				groups = append(groups, bucketGroup{b, []string{col.stage}})
			}
		}
	}
	return groups, all && len(groups) > 0
}

// oneBucketText says the columns of groups in one sentence.
func (v *view) oneBucketText(groups []bucketGroup, name string, exposed map[string]string, http bool) string {
	fine := v.finestBuckets(name, exposed, http)
	if len(groups) == 1 {
		return v.tr("Histogram p50 and p95 of %s: ≤ %s ms at every level, one bucket%s: too coarse.", v.stageList(groups[0].stages, http), num(1000*groups[0].b), fine)
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, v.tr("≤ %s ms for %s", num(1000*g.b), v.stageList(g.stages, http)))
	}
	return v.tr("Histogram p50 and p95 at every level are one bucket%s, too coarse: %s.", fine, strings.Join(parts, "; "))
}

// stageList names server stages as the table's columns do.
func (v *view) stageList(stages []string, http bool) string {
	var names []string
	for _, col := range stageCols {
		if !slices.Contains(stages, col.stage) {
			continue
		}
		name := v.tr(col.name)
		if col.stage == schemas.StageE2E && http {
			name = v.tr("server e2e (HTTP handler)")
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

// sourceName says in words where joined lines came from.
func (v *view) sourceName(source string) string {
	if source == schemas.SourceProfiler {
		return v.tr("SGLang-Omni's request profiler")
	}
	return v.tr("OpenTelemetry spans")
}

// engineNames are the engines as the report names them in prose.
var engineNames = map[string]string{engine.VLLM: "vLLM", engine.VLLMOmni: "vLLM-Omni", engine.SGLangOmni: "SGLang-Omni", engine.SGLang: "SGLang"}

// finestBuckets says how fine the histograms behind target name's
// percentiles are: for each stage of the table, the family its server
// exposed (exposed: stage -> family) and that family's buckets in
// internal/engine's table, named by the engine whose family it is (the
// target's own, as its /v1/models names it, when it lists the family):
// " (vLLM's finest latency bucket is 0.3 s)", or each stage's where they
// differ. "" where no family shown has known buckets: one engine's
// buckets are never said of another's tables.
func (v *view) finestBuckets(name string, exposed map[string]string, http bool) string {
	own := v.engineOf(name)
	bucketsOf := func(fam string) (string, float64, bool) {
		engines := engine.All()
		if own != nil {
			engines = append([]*engine.Engine{own}, engines...)
		}
		for _, e := range engines {
			for _, f := range e.Metrics.Stages {
				if f.Family == fam && len(f.Buckets) > 0 {
					who := engineNames[e.Name]
					if who == "" {
						who = e.Name
					}
					return who, f.Buckets[0], true
				}
			}
		}
		return "", 0, false
	}
	type group struct {
		who    string
		finest float64
		stages []string
	}
	var groups []group
	for _, col := range stageCols {
		stage, label := col.stage, v.tr(col.name)
		if http && stage == schemas.StageE2E {
			stage, label = schemas.StageHTTP, v.tr("server e2e (HTTP handler)")
		}
		fam, ok := exposed[stage]
		if !ok {
			continue
		}
		who, finest, ok := bucketsOf(fam)
		if !ok {
			continue
		}
		if j := slices.IndexFunc(groups, func(g group) bool { return g.who == who && g.finest == finest }); j >= 0 {
			groups[j].stages = append(groups[j].stages, label)
		} else {
			groups = append(groups, group{who, finest, []string{label}})
		}
	}
	switch len(groups) {
	case 0:
		return ""
	case 1:
		return v.tr(" (%s's finest latency bucket is %s s)", groups[0].who, strconv.FormatFloat(groups[0].finest, 'f', -1, 64))
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, v.tr("%s's %s s for %s", g.who, strconv.FormatFloat(g.finest, 'f', -1, 64), strings.Join(g.stages, ", ")))
	}
	return v.tr(" (finest latency buckets: %s)", strings.Join(parts, "; "))
}

// percentiles is a target's paragraph and table of p50 / p95.
func (v *view) percentiles(name string, exposed map[string]string, pt *pctTarget) []block {
	if pt == nil {
		return nil
	}
	carried := false
	for _, r := range pt.rows {
		carried = carried || r.carried
	}
	var intro string
	var constant []string // the server columns said in one sentence
	switch {
	case pt.perRequest:
		intro = v.tr("Percentiles (p50 / p95) from %d requests joined by request id (%s): exact, over each level's repeats together, and client − server per request.", pt.joined, v.sourceName(pt.source))
	case pt.unjoined > 0 && pt.unjoinedSG:
		intro = v.tr("The per-request join is not available: the server's %d per-request records carry only its own request ids, which SGLang-Omni returns on streamed answers alone (a run with --stream joins them).", pt.unjoined)
	case pt.unjoined > 0:
		intro = v.tr("The per-request join is not available: none of the server's %d per-request records names a request id of the records.", pt.unjoined)
	}
	if !pt.perRequest {
		if !carried {
			if intro == "" {
				return nil
			}
			return []block{para{spans: []span{t(intro)}}}
		}
		if intro != "" {
			intro += " "
		}
		groups, all := oneBucket(pt)
		if all {
			// Every server cell says "≤ B / ≤ B": a table of it says
			// no more than one sentence, and at 1280 px it overflowed.
			// Which bound, and how fine each family's buckets are, is
			// docs/report.md's: one bucket everywhere says nothing more.
			return []block{para{spans: []span{t(intro + v.tr("Histogram p50 and p95: one bucket at every level, too coarse to say more."))}}}
		}
		// How to get per-request evidence is said once, in the
		// section's first paragraph (timeBreakdown).
		intro += v.tr("Histogram p50 / p95, upper bounds%s:",
			v.finestBuckets(name, exposed, pt.http))
		if len(groups) > 0 {
			// The columns of one bucket are a sentence, the rest a table.
			intro += " " + v.oneBucketText(groups, name, exposed, pt.http)
			for _, g := range groups {
				constant = append(constant, g.stages...)
			}
		}
	}
	header := []string{v.levelHeader()}
	if pt.perRequest {
		header = append(header, v.tr("requests joined"))
	}
	header = append(header, v.tr("client latency"))
	for _, col := range stageCols {
		header = append(header, v.tr(col.name))
	}
	header = append(header, v.tr("client − server"))
	if pt.http {
		header[2] = v.tr("server e2e (HTTP handler)")
	}
	no := v.tr("not observed")
	var rows [][]string
	for _, r := range pt.rows {
		row := []string{v.levelLabel(r.c)}
		reps := r.of
		if pt.perRequest {
			row = append(row, v.tr("%d of %d successes", r.joined, r.of))
			reps = 0
		}
		if !r.carried {
			row = append(row, "—")
			for range stageCols {
				row = append(row, no)
			}
			rows = append(rows, append(row, "—"))
			continue
		}
		if pt.perRequest {
			row = append(row, v.pctMs(r.client, reps, "—"))
		} else {
			// The latency table has the client's percentiles.
			row = append(row, oneBucketCell)
		}
		for _, col := range stageCols {
			c := r.server
			if col.stage != schemas.StageE2E {
				c = r.stage[col.stage]
			}
			if slices.Contains(constant, col.stage) {
				row = append(row, oneBucketCell)
				continue
			}
			row = append(row, v.pctMs(c, reps, no))
		}
		rest := no
		if !pt.perRequest {
			rest = v.tr("not observed (needs per-request evidence)")
		}
		rows = append(rows, append(row, v.pctMs(r.rest, reps, rest)))
	}
	caption := v.tr("%s, p50 / p95 in milliseconds, from the histograms.", name)
	if pt.perRequest {
		caption = v.tr("%s, p50 / p95 in milliseconds, from %d requests joined by request id.", name, pt.joined)
		for _, r := range pt.rows {
			if r.joined == 0 {
				caption += " " + v.tr("\"not observed\" on a whole row: no request of that level joined.")
				break
			}
		}
	}
	// Stages never observed and, without per-request evidence, client −
	// server (the section's first paragraph says how to get it) are
	// sentences, not columns.
	from := 1
	if pt.perRequest {
		from = 3
	}
	header, rows, dropped := dropEmptyColumns(header, rows, from, no, v.tr("not observed (needs per-request evidence)"), oneBucketCell)
	// Said already: client − server's advice (the section's first
	// paragraph), the columns of one bucket (the intro), the stages no
	// histogram carries (the target's paragraph above the means).
	var said []string
	if !pt.perRequest {
		said = append(said, v.tr("client − server"), v.tr("client latency"))
		for _, col := range stageCols {
			_, ok := exposed[col.stage]
			if slices.Contains(constant, col.stage) || !ok && !(col.stage == schemas.StageE2E && pt.http) {
				said = append(said, v.stageList([]string{col.stage}, pt.http))
			}
		}
	}
	dropped = slices.DeleteFunc(dropped, func(d string) bool { return slices.Contains(said, d) })
	if len(dropped) > 0 {
		caption += " " + v.tr("Not observed at any level: %s.", strings.Join(dropped, ", "))
	}
	if !pt.perRequest && len(header) == 2 {
		// One column left: a sentence, its levels grouped by cell.
		return []block{para{spans: []span{t(strings.TrimSuffix(intro, ":") + v.tr(", in milliseconds, of %s: %s.", header[1], v.byCell(rows)))}}}
	}
	return []block{para{spans: []span{t(intro)}}, table{caption: caption, header: header, right: allRight(len(header)), rows: rows}}
}

// byCell words a two-column table's rows (level, cell) as "≤ 100 / ≤ 100
// at C = 1, 8; ≤ 5.00 / ≤ 250 at C = 32", runs of levels with one cell
// together.
func (v *view) byCell(rows [][]string) string {
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		var labels []string
		for j < len(rows) && rows[j][1] == rows[i][1] {
			labels = append(labels, rows[j][0])
			j++
		}
		parts = append(parts, rows[i][1]+" "+v.atLevels(labels))
		i = j
	}
	return strings.Join(parts, v.tr("; "))
}
