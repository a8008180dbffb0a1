package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// failedVerify is the report's first line when verification failed.
func (v *view) failedVerify() []block {
	r := v.in.Verify
	if r == nil || r.OK() {
		return nil
	}
	var names []string
	for _, c := range r.Checks {
		if c.Status == verify.Fail {
			names = append(names, c.Name)
		}
	}
	return []block{para{warn: true, spans: []span{
		b(v.tr("This %s FAILED benchseal verify", v.tr(r.Kind))),
		t(" " + v.tr("(%d of %d checks failed: %s). Its numbers are not evidence until that is resolved; the findings are listed under Caveats.", r.Failed, len(r.Checks), strings.Join(names, ", "))),
	}}}
}

// side is one target at one level, as the verdict package takes it:
// cache hits count only with perturbation on (every request distinct),
// and the repeats' request latencies come with it when the records were
// read.
func (v *view) side(name string, l *schemas.LevelClaims) verdict.Side {
	s := verdict.Side{Name: name}
	lat := v.latencies[name][l.Concurrency]
	for i, m := range l.Repeats {
		s.Requests += m.Requests
		s.Failed += m.Failed
		x := m.ReqPerS
		if m.Succeeded == 0 {
			x = math.NaN()
		}
		s.Repeats = append(s.Repeats, x)
		// Only a counter of whole inputs says a request was answered from
		// a cache (claims.CacheHitsAnswered, from internal/engine's row);
		// tokens a prefix cache reused never make a side not comparable.
		// Claims that do not name the counter are read as before: hits.
		if answered, known := claims.CacheHitsAnswered(m); v.in.Run.Protocol.Perturb && m.CacheHits != nil && (answered || !known) {
			s.CacheHits += *m.CacheHits
		}
		if lat != nil {
			s.Latencies = append(s.Latencies, lat[i+1])
		}
		if steady, known := claims.Steady(m, l.Concurrency); known && !steady {
			need := claims.SteadyRequests(m, l.Concurrency)
			if s.Unsteady == nil || *m.MeanInFlight < s.Unsteady.MeanInFlight {
				s.Unsteady = &verdict.Shortfall{MeanInFlight: *m.MeanInFlight, Concurrency: l.Concurrency, Requests: max(need, requestsOf(s.Unsteady))}
			} else {
				s.Unsteady.Requests = max(s.Unsteady.Requests, need)
			}
		}
	}
	if rep := v.stalled[name][l.Concurrency]; rep > 0 {
		s.ClientStalled = v.tr("its client stalled in repeat %d", rep)
	}
	if !v.in.Run.Protocol.Perturb {
		if bearing, _ := claims.ProbeBearingOf(v.in.Run, v.in.Claims, name); bearing == claims.ProbeInflated {
			s.Cached = true
		}
	}
	return s
}

func requestsOf(s *verdict.Shortfall) int {
	if s == nil {
		return 0
	}
	return s.Requests
}

// indexLatencies groups the successful measured requests' latencies by
// target, level and repeat (1-based).
func (v *view) indexLatencies() {
	for _, r := range v.in.Records {
		if r.Phase != schemas.PhaseMeasure || !r.OK || r.EndNs < r.StartNs {
			continue
		}
		if v.latencies == nil {
			v.latencies = map[string]map[int]map[int][]float64{}
		}
		byC := v.latencies[r.Target]
		if byC == nil {
			byC = map[int]map[int][]float64{}
			v.latencies[r.Target] = byC
		}
		if byC[r.Concurrency] == nil {
			byC[r.Concurrency] = map[int][]float64{}
		}
		byC[r.Concurrency][r.Repeat] = append(byC[r.Concurrency][r.Repeat], float64(r.EndNs-r.StartNs)/1e9)
	}
	v.indexStalls()
	// Records arrive in completion order: sort so the bootstrap's draws
	// do not depend on it.
	for _, byC := range v.latencies {
		for _, byR := range byC {
			for _, l := range byR {
				slices.Sort(l)
			}
		}
	}
}

// indexStalls finds, for each closed-loop target and level, the first
// repeat whose client stalled (claims.ClientStalled: the workers' gaps
// verify's check 7 counts, or a dispatch-gap p99 over 1 ms): a side
// whose client did not send the load its concurrency says is not
// compared (verdict.Side.ClientStalled).
func (v *view) indexStalls() {
	if v.in.Run.Protocol.Mode == schemas.ModeOpen || len(v.in.Records) == 0 {
		return
	}
	type key struct {
		t      string
		c, rep int
	}
	steps := map[key][]schemas.Record{}
	for _, r := range v.in.Records {
		if r.Phase == schemas.PhaseMeasure {
			k := key{r.Target, r.Concurrency, r.Repeat}
			steps[k] = append(steps[k], r)
		}
	}
	for k, recs := range steps {
		if !claims.ClientStalled(recs, k.c) {
			continue
		}
		if v.stalled == nil {
			v.stalled = map[string]map[int]int{}
		}
		if v.stalled[k.t] == nil {
			v.stalled[k.t] = map[int]int{}
		}
		if cur := v.stalled[k.t][k.c]; cur == 0 || k.rep < cur {
			v.stalled[k.t][k.c] = k.rep
		}
	}
}

// words is a verdict in the report's language.
func (v *view) words(r verdict.Result, a, b string) string {
	names := []string{a, b}
	switch r.Kind {
	case verdict.Ahead:
		return v.tr("%s ahead by %s", names[r.Leader], pctShort(r.By))
	case verdict.NoDifference:
		return v.tr("no difference shown (repeats overlap)")
	case verdict.WithinNoise:
		return v.tr("within noise (±%s)", pctShort(r.MinEffect))
	case verdict.NotSteady:
		u := r.Unsteady
		return v.tr("not at steady state (mean %s of %d in flight): run ≥ %d requests", oneDecimal(u.MeanInFlight), u.Concurrency, u.Requests)
	case verdict.SingleRepeat:
		if r.Basis != verdict.IntervalNone {
			// The interval shown rests on the one window's requests.
			return v.tr("single repeat: no lead claimed from one window (the interval is over its requests only)")
		}
		return v.tr("single repeat: one observation, no interval")
	}
	if r.NoSuccess {
		return v.tr("not comparable: %s had no successful request", names[r.Culprit])
	}
	if r.CacheHits > 0 {
		return v.tr("not comparable: %s counted %s cache hits", names[r.Culprit], count(r.CacheHits))
	}
	if r.Cached {
		return v.tr("not comparable: %s answered from its cache (perturbation was off)", names[r.Culprit])
	}
	if r.ClientStalled != "" {
		return v.tr("not comparable: %s: %s (the load was not what its concurrency says)", names[r.Culprit], r.ClientStalled)
	}
	return v.tr("not comparable: %s failed %s of requests", names[r.Culprit], pctShort(r.Failed))
}

func oneDecimal(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64) }

func ratioText(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "×"
}

// verdictPairs is every pair's verdict (headline and table), the faster
// target first: the closed loop's by throughput, the open loop's by its
// rule (openPair).
func (v *view) verdictPairs() []block {
	if len(v.targets) < 2 {
		return nil
	}
	var out []block
	order := v.ordered()
	for i := 0; i < len(order); i++ {
		for j := i + 1; j < len(order); j++ {
			a, bn := order[i], order[j]
			if v.leads(bn, a) {
				a, bn = bn, a // the ratio reads as the faster target's lead
			}
			if v.open() {
				out = append(out, v.openPair(a, bn)...)
			} else {
				out = append(out, v.pair(a, bn)...)
			}
		}
	}
	return out
}

// conclusion compares every pair of targets at every level they share.
func (v *view) conclusion() []block {
	if v.open() {
		return v.openConclusion()
	}
	if len(v.targets) < 2 {
		return nil
	}
	out := append([]block{heading{2, v.tr("Conclusion")}}, v.verdictPairs()...)
	out = append(out, v.fairnessLine(false)...)
	rule := v.tr("Rule: the ratio of median successful requests per second over repeats, first target over second.")
	switch {
	case len(v.latencies) > 0:
		rule += v.tr(" Interval: a seeded bootstrap over requests and repeats.")
	case v.repeats < verdict.MinBootstrapRepeats:
		rule += v.tr(" The interval is the range of the ratio over repeats (records not read; below %d repeats a bootstrap has too few distinct values to mean 95 %%).", verdict.MinBootstrapRepeats)
	default:
		rule += v.tr(" The interval is a seeded bootstrap over repeats only (records not read).")
	}
	rule += v.noiseRule()
	// The verdict says why a level has no lead or is not comparable:
	// REPORT.md points to the thresholds, report.html states them.
	out = append(out,
		htmlOnly{para{spans: []span{t(rule + v.tr(" No lead from overlapping repeats, one repeat, or a level short of steady state (mean in flight below 0.9·C, or all C busy under 80 % of the window); not comparable: over 1 % failed, cache hits on distinct requests, or cached answers without perturbation. Details: benchseal's docs/report.md."))}}},
		mdOnly{para{spans: []span{t(rule + v.tr(" The other verdicts' thresholds: report.html, benchseal's docs/report.md."))}}})
	return out
}

// intervalHeader names the interval column by what it rests on: the
// pair's repeats at the levels compared, from lo to hi (a target stopped
// early has fewer than the run's other targets).
func (v *view) intervalHeader(b verdict.Basis, lo, hi int) string {
	if b == verdict.IntervalNone && len(v.latencies) > 0 {
		b = verdict.RequestsAndRepeats // no level had one; name what it would rest on
	}
	switch {
	case b == verdict.RangeOverRepeats && lo != hi:
		return v.tr("range over this run's %d–%d repeats", lo, hi)
	case b == verdict.RangeOverRepeats:
		return v.plural(lo, "range over this run's %d repeat", "range over this run's %d repeats")
	case b == verdict.RequestsAndRepeats && lo >= 3:
		return v.tr("95 % interval within this run's repeats (requests and repeats)")
	case b == verdict.RequestsAndRepeats && lo != hi:
		return v.tr("interval from requests within this run's %d–%d repeats", lo, hi)
	case b == verdict.RequestsAndRepeats:
		return v.plural(lo, "interval from requests within this run's %d repeat", "interval from requests within this run's %d repeats")
	case lo >= verdict.MinBootstrapRepeats:
		return v.tr("95 % interval within this run's repeats")
	case lo != hi:
		return v.tr("range over this run's %d–%d repeats", lo, hi)
	}
	return v.plural(lo, "range over this run's %d repeat", "range over this run's %d repeats")
}

// leads says a has the higher median throughput at more shared levels
// than b; in an open loop, that it leads at more offered rates by
// openLead.
func (v *view) leads(a, b string) bool {
	n := 0
	for _, c := range v.levels {
		la, lb := v.lookup(a, c), v.lookup(b, c)
		if la == nil || lb == nil {
			continue
		}
		if v.open() {
			n += v.openLead(la, lb)
			continue
		}
		switch {
		case la.Median.ReqPerS > lb.Median.ReqPerS:
			n++
		case la.Median.ReqPerS < lb.Median.ReqPerS:
			n--
		}
	}
	return n > 0
}

type levelVerdict struct {
	c int
	r verdict.Result
}

func (v *view) pair(a, bn string) []block {
	var lv []levelVerdict
	var basis verdict.Basis
	var rows [][]string
	lo, hi := 0, 0
	for _, c := range v.levels {
		la, lb := v.lookup(a, c), v.lookup(bn, c)
		if la == nil || lb == nil {
			continue
		}
		lo, hi = repeatSpan(lo, hi, la, lb)
		r := verdict.Compare(v.side(a, la), v.side(bn, lb), v.verdictOptions())
		basis = max(basis, r.Basis)
		lv = append(lv, levelVerdict{c, r})
		iv := "—"
		if !math.IsNaN(r.Lo) {
			iv = ratioText(r.Lo) + "–" + ratioText(r.Hi)
		}
		rows = append(rows, []string{strconv.Itoa(c), ratioText(r.Ratio), iv, v.words(r, a, bn)})
	}
	if len(lv) == 0 {
		return nil
	}
	headline := []span{b(v.tr("Throughput, %s vs %s:", a, bn)), t(" " + v.groups(lv, a, bn) + v.tr("."))}
	// REPORT.md's table says it alone (what a reader pastes); the page
	// leads with the sentence.
	return []block{
		htmlOnly{para{spans: headline}},
		table{
			header: []string{v.tr("concurrency"), a + " / " + bn, v.intervalHeader(basis, lo, hi), v.tr("verdict")},
			right:  []bool{true, true, true, false},
			rows:   rows,
		},
	}
}

// groups words runs of levels with the same verdict: "at C = 1, 2: no
// difference shown (repeats overlap); at C = 4–16: a ahead by 18–22 %".
// A verdict whose words carry the level's own figures (not comparable,
// not at steady state: "mean 3.7 of 4 in flight") is each level's alone,
// never one level's figure under several.
func (v *view) groups(lv []levelVerdict, a, b string) string {
	key := func(r verdict.Result) string {
		if r.Kind == verdict.NotComparable || r.Kind == verdict.NotSteady {
			return v.words(r, a, b)
		}
		return strconv.Itoa(int(r.Kind)) + "/" + strconv.Itoa(r.Leader)
	}
	var parts []string
	for i := 0; i < len(lv); {
		j := i + 1
		for j < len(lv) && key(lv[j].r) == key(lv[i].r) {
			j++
		}
		g := lv[i:j]
		cs := make([]int, len(g))
		lo, hi := math.Inf(1), math.Inf(-1)
		for k, x := range g {
			cs[k] = x.c
			lo, hi = math.Min(lo, x.r.By), math.Max(hi, x.r.By)
		}
		text := v.words(g[0].r, a, b)
		if g[0].r.Kind == verdict.Ahead && pctShort(lo) != pctShort(hi) {
			text = v.tr("%s ahead by %s", []string{a, b}[g[0].r.Leader], strings.TrimSuffix(pctShort(lo), " %")+"–"+pctShort(hi))
		}
		parts = append(parts, v.tr("at C = %s: %s", joinInts(cs), text))
		i = j
	}
	return strings.Join(parts, v.tr("; "))
}

// caveats lists what may make the comparison unfair or weaker than it
// looks: verify's warnings and failures, then what the claims show.
func (v *view) caveats() []block {
	var items [][]span
	r := v.in.Verify
	if r == nil {
		items = append(items, []span{b(v.tr("Not verified:")), t(" " + v.tr("benchseal verify did not run for this report, so the fairness of the comparison (server settings, GPUs, caches) and the evidence were not checked here; run benchseal verify on the bundle."))})
	} else {
		// Fairness first: it is what limits the comparison. What was
		// not observed is one line, the conclusion's unless a fact
		// also differs.
		if differs, unseen := v.fairnessFacts(); differs && len(unseen) > 0 {
			items = append(items, []span{b(v.tr("Fairness not observable:")), t(" " + v.unseenText(unseen, true) + v.tr("."))})
		}
		items = append(items, v.findings(r, true)...)
	}
	if run := v.in.Run; !run.Complete {
		why := run.Incomplete
		if why == "" {
			why = v.tr("no reason recorded")
		}
		items = append(items, []span{b(v.tr("Incomplete run:")), t(" " + v.tr("the run stopped early (%s): levels or repeats may be missing.", why))})
	}
	items = append(items, v.claimCaveats()...)
	items = append(items, v.stageCaveats()...)
	if r != nil {
		items = append(items, v.findings(r, false)...)
	}
	if v.in.KeyEphemeral && v.in.KeyFingerprint == "" && (r == nil || !hasUnpinned(r)) {
		items = append(items, []span{b(v.tr("Unpinned key:")), t(" " + v.tr("the bundle was signed with an ephemeral key whose public half it carries, so the signature shows the bundle unchanged since sealing, not who sealed it."))})
	}
	if len(items) == 0 {
		if _, unseen := v.fairnessFacts(); len(unseen) > 0 {
			items = append(items, []span{t(v.tr("None beyond what the conclusion says was not observable: no target failed more than 1 % of its requests, and every level has more than one repeat and at least C requests."))})
		} else {
			items = append(items, []span{t(v.tr("None found: benchseal verify passed every check, no target failed more than 1 % of its requests, and every level has more than one repeat and at least C requests."))})
		}
	}
	return append([]block{box{title: v.tr("Caveats"), items: items, warn: true}}, v.advice(r)...)
}

// advice is how to observe what the caveats say was not observed, given
// once below the box and grouped per engine (each engine's
// Knobs.Expose from internal/engine's table, with the targets it serves),
// instead of at the end of every finding: the caveats list facts. A
// target whose engine its /v1/models does not name gets every engine's
// advice. None when no finding carried advice.
func (v *view) advice(r *verify.Report) []block {
	if r == nil || !hasAdvice(r) {
		return nil
	}
	var order []*engine.Engine
	served := map[*engine.Engine][]string{}
	var unknown []string
	for _, t := range v.in.Run.Targets {
		e := v.engineOf(t.Name)
		switch {
		case e == nil:
			unknown = append(unknown, t.Name)
		case e.Knobs.Expose == "":
		default:
			if _, ok := served[e]; !ok {
				order = append(order, e)
			}
			served[e] = append(served[e], t.Name)
		}
	}
	var items [][]span
	for _, e := range order {
		who := " (" + strings.Join(served[e], ", ") + ")" // the targets it serves, unless named as the engine
		if len(served[e]) == 1 && served[e][0] == e.Name {
			who = ""
		}
		items = append(items, []span{b(e.Name), t(who + ": " + e.Knobs.Expose + ".")})
	}
	if len(unknown) > 0 {
		items = append(items, []span{b(strings.Join(unknown, ", ")), t(" " + v.tr("(engine not named by its /v1/models): %s.", strings.Join(engine.HowToExpose(), "; ")))})
	}
	if len(items) == 0 {
		return nil
	}
	return []block{para{spans: []span{b(v.tr("To observe what was not observed:"))}}, bullets{items: items}}
}

// hasAdvice says a warning or failure of r carries advice (Finding.Advice).
func hasAdvice(r *verify.Report) bool {
	for _, c := range r.Checks {
		for _, f := range c.Findings {
			if f.Advice != "" && (f.Status == verify.Warn || f.Status == verify.Fail) {
				return true
			}
		}
	}
	return false
}

// engineOf is the engine of internal/engine's table that target's
// /v1/models owned_by names (its capture before the sweep, else after),
// nil when none does.
func (v *view) engineOf(target string) *engine.Engine {
	for _, sc := range v.in.Servers {
		if sc.Target != target {
			continue
		}
		for _, p := range sc.Probes {
			if p.Path != "/v1/models" || p.Status != 200 {
				continue
			}
			if e, ok := engine.ByModelsAnswer([]byte(p.Body)); ok {
				return e
			}
		}
	}
	return nil
}

// findings are the warnings and failures of verify's fairness check
// (fairness) or of every other check (!fairness), at most 6 per check.
func (v *view) findings(r *verify.Report, fairness bool) [][]span {
	var items [][]span
	for _, c := range r.Checks {
		if (c.ID == verify.CheckFairness) != fairness || (c.Status != verify.Warn && c.Status != verify.Fail) {
			continue
		}
		label := upperFirst(v.tr(c.Name))
		shown, said := 0, 0
		for _, f := range c.Findings {
			if f.Status != verify.Warn && f.Status != verify.Fail {
				continue
			}
			if v.saidElsewhere(f) {
				// In bold under the title (the simulator), or said by the
				// report's own caveats, from the same figures: the
				// client's (clientCaveats), the failures' (Errors: a step
				// under half successes fails more than 1 %), steady
				// state's (steadyCaveats, from claims.json, which verify
				// recomputes).
				said++
				continue
			}
			if _, ok := v.notObservedFact(f); ok && fairness && f.Status == verify.Warn {
				said++ // one line: the conclusion's, or the box's first (fairnessCaveat)
				continue
			}
			if shown == 6 {
				break
			}
			shown++
			l := label + ":"
			if f.Status == verify.Fail {
				l = v.tr("%s (FAILED):", label)
			}
			// The fact alone: its advice is given once, per engine, below
			// the box (advice).
			if f.Advice != "" {
				f.Reason = strings.TrimSuffix(strings.TrimSuffix(f.Reason, f.Advice), "; ")
			}
			// Never clipped: a finding's end is often what to do.
			items = append(items, []span{b(l), t(" " + v.finding(f))})
		}
		if more := len(c.Findings) + c.Omitted - shown - said; more > 0 {
			items = append(items, []span{t(v.tr("%s: %d more findings; benchseal verify lists them.", label, more))})
		}
	}
	return items
}

// finding is a verify finding in the report's language: translated by
// its Kind where the kind fixes the content, else verify's English
// words, with a lead-in in a translated report saying they are verify's.
func (v *view) finding(f verify.Finding) string {
	if tables[v.in.Lang] == nil {
		return oneLine(f.String())
	}
	switch f.Kind {
	case verify.KindUnpinned:
		return v.tr("signer unpinned: verified with the key the bundle carries, which proves it intact, not who sealed it")
	case verify.KindNoPerturb:
		return v.tr("PERTURBATION WAS OFF: every request sent its clip unchanged, so a server cache could answer repeats; these numbers do not measure uncached serving")
	}
	return v.tr("(benchseal verify's words, in English:) %s", oneLine(f.String()))
}

// oneLine folds runs of white space, so a finding is one paragraph.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// verifyCoversCaches says verify's fairness check ran on the claims, so
// its findings already say which targets' cache hits are not observable.
func verifyCoversCaches(r *verify.Report) bool {
	if r == nil {
		return false
	}
	c := r.Check(verify.CheckFairness)
	return c != nil && c.Status != verify.Skip
}

// hasUnpinned says verify already said the signer is unpinned.
func hasUnpinned(r *verify.Report) bool { return r.Kind == "bundle" && !r.Pinned }

// claimCaveats are the caveats the claims show: failed requests, levels
// with fewer requests than C or a single repeat, and cache hits.
func (v *view) claimCaveats() [][]span {
	var items [][]span
	for _, tg := range v.targets {
		var parts []string
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			if f := failedShare(l); f > verdict.MaxFailed {
				parts = append(parts, v.tr("%s at C = %d (%s)", pctShort(f), c, v.errorClasses(l)))
			}
		}
		if len(parts) > 0 {
			items = append(items, []span{b(v.tr("Errors:")), t(" " + v.tr("%s failed more than 1 %% of its requests: %s.", tg, strings.Join(parts, "; ")))})
		}
	}
	var few, single []string
	for _, c := range v.levels {
		fewAt, singleAt := false, false
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			for _, m := range l.Repeats {
				if m.Requests < c {
					fewAt = true
				}
			}
			if len(l.Repeats) == 1 {
				singleAt = true
			}
		}
		if fewAt {
			few = append(few, v.levelLabel(c))
		}
		if singleAt {
			single = append(single, v.levelLabel(c))
		}
	}
	if len(few) > 0 {
		items = append(items, []span{b(v.tr("Fewer requests than C:")), t(" " + v.tr("%s a repeat measured fewer requests than the concurrency, so the level never ran at full concurrency.", v.atLevels(few)))})
	}
	items = append(items, v.steadyCaveats()...)
	items = append(items, v.clientCaveats()...)
	if len(single) > 0 {
		what := v.tr("%s there is one repeat: one observation, no spread and no interval.", v.atLevels(single))
		if len(v.latencies) > 0 { // the conclusion shows an interval over the one repeat's requests
			what = v.tr("%s there is one repeat: one observation of the setup, no spread over repeats; the interval shown rests on its requests alone, so no lead is claimed.", v.atLevels(single))
		}
		items = append(items, []span{b(v.tr("Single repeat:")), t(" " + what)})
	}
	hits, tokens, unseen := v.cacheTally()
	if len(hits) > 0 {
		items = append(items, []span{b(v.tr("Cache hits:")), t(" " + v.tr("%s over all levels and repeats: the server reused work, so its speed is not that of %s.", strings.Join(hits, "; "), v.word(v.tw.Work)))})
	}
	if len(tokens) > 0 {
		items = append(items, []span{b(v.tr("Prefix cache:")), t(" " + v.tr("%s over all levels and repeats: tokens of a prompt prefix that distinct audio shares, not requests answered from a cache.", strings.Join(tokens, "; ")))})
	}
	if len(unseen) > 0 && !verifyCoversCaches(v.in.Verify) {
		items = append(items, []span{b(v.tr("Cache hits not observable:")), t(" " + v.tr("%s exposed no cache-hit counter: whether it reused work across requests is not observed.", strings.Join(unseen, ", ")))})
	}
	items = append(items, v.taskCaveats()...)
	return append(items, v.probeCaveats()...)
}

// clientCaveats say what the client's own evidence says of it
// (internal/claims' saturation.go): "saturated" only where a step's
// workers' gaps show the client stalled (claims.ClientStalled: workers
// idle over claims.StalledIdleShare of their time with a dispatch-gap p99
// above claims.SaturatedGap or a stall of the stall rule), with the host's CPU at those levels beside it; a host whose CPU
// mean reached claims.SaturatedCPUPct while the workers kept up is
// "busy", a milder caveat with benchseal's own CPU share (claims'
// client_cpu_mean) and its workers' idle share (claims.WorkerIdleShare):
// the load it sent is not in doubt. The load average at a level's start
// needs the host samples, which only verify reads, so its finding
// (verify.KindClientSaturated or KindClientBusy) is said here too, in its
// words, when the report saw no sign itself. One line, or none.
func (v *view) clientCaveats() [][]span {
	type stepKey struct {
		t    string
		c, r int
	}
	steps := map[stepKey][]schemas.Record{}
	for _, r := range v.in.Records {
		if r.Phase == schemas.PhaseMeasure {
			k := stepKey{r.Target, r.Concurrency, r.Repeat}
			steps[k] = append(steps[k], r)
		}
	}
	open := v.in.Run.Protocol.Mode == schemas.ModeOpen
	var cpuAt, gapAt, stallAt []string
	cpuMax, gapMax, ownMax, idleMax := 0.0, 0.0, -1.0, -1.0
	for _, c := range v.levels {
		cpuHere, gapHere, stallHere := false, false, false
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			for _, m := range l.Repeats {
				if claims.CPUSaturated(m) {
					cpuHere, cpuMax = true, max(cpuMax, *m.HostCPUMean)
				}
				if m.ClientCPUMean != nil {
					ownMax = max(ownMax, *m.ClientCPUMean)
				}
			}
		}
		for k, recs := range steps {
			if k.c != c || open {
				continue
			}
			if claims.ClientStalled(recs, k.c) {
				stallHere = true
				if g, ok := claims.DispatchGapP99(recs); ok && g > claims.SaturatedGap {
					gapHere, gapMax = true, max(gapMax, g.Seconds()*1e3)
				}
			}
			if sh, ok := claims.WorkerIdleShare(recs, k.c); ok {
				idleMax = max(idleMax, 100*sh)
			}
		}
		if cpuHere {
			cpuAt = append(cpuAt, v.levelLabel(c))
		}
		if gapHere {
			gapAt = append(gapAt, v.levelLabel(c))
		}
		if stallHere && !gapHere {
			stallAt = append(stallAt, v.levelLabel(c))
		}
	}
	stalled := len(gapAt) > 0 || len(stallAt) > 0
	var facts []string
	switch {
	case len(cpuAt) > 0 && stalled:
		facts = append(facts, v.tr("client CPU mean at or above 90 %% %s (highest %.0f %%)", v.atLevels(cpuAt), cpuMax))
	case len(cpuAt) > 0:
		facts = append(facts, v.tr("host CPU mean ≥ 90 %% %s (up to %.0f %%)", v.atLevels(cpuAt), cpuMax))
	}
	if len(gapAt) > 0 {
		facts = append(facts, v.tr("dispatch-gap p99 above 1 ms %s (highest %.1f ms)", v.atLevels(gapAt), gapMax))
	}
	if len(stallAt) > 0 {
		facts = append(facts, v.tr("workers stalled over 50 ms between requests %s", v.atLevels(stallAt)))
	}
	var verifySaid string
	var verifyKind verify.Kind
	if v.in.Verify != nil {
		for _, c := range v.in.Verify.Checks {
			for _, f := range c.Findings {
				if (f.Kind == verify.KindClientSaturated || f.Kind == verify.KindClientBusy) && verifyKind == "" {
					verifyKind, verifySaid = f.Kind, f.Reason
				}
			}
		}
	}
	if stalled || len(facts) == 0 && verifyKind == verify.KindClientSaturated {
		if len(facts) == 0 {
			r := strings.TrimSuffix(strings.TrimPrefix(verifySaid, "the client host was saturated: "), ": "+verify.ClientSaturatedAdvice)
			facts = append(facts, v.tr("benchseal verify: %s", r))
		}
		return [][]span{{b(v.tr("Client host saturated:")), t(" " + v.tr("the client host was saturated (%s): latencies include client-side queueing; run the client on its own host.", strings.Join(facts, "; ")))}}
	}
	if len(cpuAt) == 0 {
		if verifyKind == verify.KindClientBusy {
			return [][]span{{b(v.tr("Client host busy:")), t(" " + v.tr("benchseal verify: %s", verifySaid) + ".")}}
		}
		return nil
	}
	own := v.tr("benchseal's own CPU was not recorded (a run made before it)")
	if ownMax >= 0 {
		own = v.tr("benchseal used %.1f %% of its CPUs", ownMax)
	}
	if idleMax >= 0 {
		own += v.tr(", its workers idle %.1f %% of the time", idleMax)
	}
	return [][]span{{b(v.tr("Client host busy:")), t(" " + v.tr("%s, but %s: the load it sent is not in doubt.", strings.Join(facts, "; "), own))}}
}

// steadyKnown says whether claims.json carries every repeat's steady-state
// figures, so that steadyCaveats names each level verify's check 7 finds
// short of steady state.
func (v *view) steadyKnown() bool {
	for _, c := range v.levels {
		for _, tg := range v.targets {
			if l := v.lookup(tg, c); l != nil {
				for i := range l.Repeats {
					if _, known := claims.Steady(l.Repeats[i], c); !known {
						return false
					}
				}
			}
		}
	}
	return true
}

// steadyCaveats name the levels whose repeats never reached steady state
// (claims.Steady), with the worst repeat's figures and the requests that
// would reach it, or say the check was not made when claims.json does
// not carry the figures.
func (v *view) steadyCaveats() [][]span {
	var parts []string
	unknown := false
	for _, c := range v.levels {
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			var worst *schemas.Metrics
			need := 0
			for i := range l.Repeats {
				m := &l.Repeats[i]
				steady, known := claims.Steady(*m, c)
				if !known {
					unknown = true
					continue
				}
				if !steady {
					need = max(need, claims.SteadyRequests(*m, c))
					if worst == nil || *m.MeanInFlight < *worst.MeanInFlight {
						worst = m
					}
				}
			}
			if worst != nil {
				parts = append(parts, v.tr("%s at C = %d (mean %s of %d in flight, all %d busy for %s of the window; run ≥ %d requests)",
					tg, c, oneDecimal(*worst.MeanInFlight), c, c, pctShort(*worst.FullConcurrencyShare), need))
			}
		}
	}
	var items [][]span
	if len(parts) > 0 {
		items = append(items, []span{b(v.tr("Not at steady state:")), t(" " + v.tr("%s: partly ramp and drain.", strings.Join(parts, "; ")))})
	}
	if unknown && v.in.Run.Protocol.Mode != schemas.ModeOpen { // an open loop has no C to be steady at: kept-up is its test
		items = append(items, []span{b(v.tr("Steady state not checked:")), t(" " + v.tr("claims.json carries no mean in flight (not computed by the build that sealed it), so whether each level reached steady state was not checked here; benchseal verify recomputes it from the records."))})
	}
	return items
}

// probeCaveats word the active cache probe of each probed target
// (claims.probes): its verdict, and, for a run made with --no-perturb
// against a target the probe found caching, that its numbers are
// inflated by caching.
func (v *view) probeCaveats() [][]span {
	var items [][]span
	var probed []string // one line for every target's verdict
	for _, tg := range v.in.Run.Targets {
		bearing, p := claims.ProbeBearingOf(v.in.Run, v.in.Claims, tg.Name)
		var verdict string
		switch bearing {
		case claims.ProbeNotAsked:
			continue
		case claims.ProbeMissing:
			items = append(items, []span{b(v.tr("Cache probe:")), t(" " + v.tr("%s was to be probed (the run asked for a cache probe), but the claims hold no probe for it: whether it caches %s is not observed.", tg.Name, v.word(v.tw.Cached)))})
			continue
		case claims.ProbeInflated, claims.ProbeHeld:
			verdict = v.tr("caches %s (repeats %.1f times faster)", v.word(v.tw.Cached), p.Speedup)
		case claims.ProbeNoCache:
			verdict = v.tr("no cache effect seen (ratio within noise)")
		case claims.ProbeStraddles:
			verdict = v.tr("undecided: the interval straddles the noise bound (%.2f), so a cache is neither shown nor excluded; run more pairs", claims.ProbeNoise)
		default:
			verdict = v.tr("not probed")
		}
		switch bearing {
		case claims.ProbeInflated, claims.ProbeHeld:
			// The interval inside the verdict's parenthesis.
			open, closing := strings.TrimSuffix(verdict, ")"), ")"
			if strings.HasSuffix(verdict, "）") {
				open, closing = strings.TrimSuffix(verdict, "）"), "）"
			}
			probed = append(probed, v.tr("%s %s, 95 %% interval %.2f to %.2f", p.Target, open, p.SpeedupLo, p.SpeedupHi)+closing)
		case claims.ProbeUndecided:
			probed = append(probed, p.Target+" "+verdict)
		default:
			probed = append(probed, v.tr("%s %s (speedup %.2f, 95 %% interval %.2f to %.2f)", p.Target, verdict, p.Speedup, p.SpeedupLo, p.SpeedupHi))
		}
		if bearing == claims.ProbeInflated {
			items = append(items, []span{b(v.tr("Inflated by caching:")), t(" " + v.tr("%s caches %s and this run sent every %s unchanged (--no-perturb): its numbers are inflated by caching and do not measure %s.", p.Target, v.word(v.tw.Cached), v.word(v.tw.Input), v.word(v.tw.Work)))})
		}
		if p.CounterAgrees != nil && !*p.CounterAgrees {
			// Beside the verdict it disagrees with, not a line of its own.
			counter, hits, _ := claims.ProbeCounter(*p)
			probed[len(probed)-1] += v.tr(", though its %s grew by %g over the probe: the latencies and the counter disagree", counter, hits)
		}
	}
	if len(probed) > 0 {
		items = append([][]span{{b(v.tr("Cache probe:")), t(" " + strings.Join(probed, v.tr("; ")) + v.tr("."))}}, items...)
	}
	return items
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// repeatSpan widens [lo, hi], the fewest and most repeats seen so far (lo
// 0: none yet), by the repeats of la and lb.
func repeatSpan(lo, hi int, la, lb *schemas.LevelClaims) (int, int) {
	for _, n := range []int{len(la.Repeats), len(lb.Repeats)} {
		if lo == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}
