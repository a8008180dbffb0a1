package report

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// The report is built once as a list of blocks, then written as Markdown
// or HTML: both formats say the same thing by construction.

type spanKind int

const (
	plain spanKind = iota
	code
	strong
)

type span struct {
	kind spanKind
	text string
}

func t(s string) span { return span{plain, s} }
func c(s string) span { return span{code, s} }
func b(s string) span { return span{strong, s} }

// kv is a bold "name:" and its value; the space stays outside the bold
// because Markdown does not close ** right after a space.
func kv(name string, value ...span) []span {
	return append([]span{{strong, name + ":"}, t(" ")}, value...)
}

type block interface{}

type heading struct {
	level int
	text  string
}

// para is a paragraph; warn paragraphs stand out (perturbation off, an
// incomplete run, an unpinned signer).
type para struct {
	spans []span
	warn  bool
}

// table cells are plain text; right[i] right-aligns column i (numbers).
type table struct {
	caption string
	header  []string
	right   []bool
	rows    [][]string
}

type codeBlock struct{ text string }

type bullets struct{ items [][]span }

type figure struct {
	chart Chart
	title string
}

func (v *view) fig(ch Chart) figure { return figure{ch, v.chartTitle(ch)} }

// htmlOnly is reference detail that report.html shows whole and
// REPORT.md leaves out (a per-stage table, the RTFx table): REPORT.md is
// what a reader pastes, and points to report.html for the rest (an
// mdOnly line). Markdown drops it (mdBlocks), HTML unwraps it
// (htmlBlocks).
type htmlOnly struct{ block }

// mdOnly is REPORT.md's short stand-in for htmlOnly detail: a line
// with the figure a verdict needs and a pointer to report.html.
type mdOnly struct{ block }

// mdBlocks is what REPORT.md writes of blocks: htmlOnly dropped, mdOnly
// unwrapped.
func mdBlocks(bs []block) []block { return forFormat(bs, false) }

// htmlBlocks is what report.html writes of blocks: mdOnly dropped,
// htmlOnly unwrapped.
func htmlBlocks(bs []block) []block { return forFormat(bs, true) }

func forFormat(bs []block, html bool) []block {
	out := make([]block, 0, len(bs))
	for _, bl := range bs {
		switch x := bl.(type) {
		case htmlOnly:
			if html {
				out = append(out, x.block)
			}
		case mdOnly:
			if !html {
				out = append(out, x.block)
			}
		default:
			out = append(out, bl)
		}
	}
	return out
}

// htmlOnlyAll wraps each of bs in htmlOnly.
func htmlOnlyAll(bs []block) []block {
	out := make([]block, len(bs))
	for i, bl := range bs {
		out[i] = htmlOnly{bl}
	}
	return out
}

// box is a framed list with a bold title: the caveats.
type box struct {
	title string
	items [][]span
	warn  bool
}

// view indexes the claims for the tables and charts.
type view struct {
	in      Input
	targets []string                                // claims order
	levels  []int                                   // ascending
	at      map[string]map[int]*schemas.LevelClaims // target -> concurrency
	repeats int
	// latencies are the successful measured requests' latencies in
	// seconds by target, level and repeat, from Input.Records.
	latencies map[string]map[int]map[int][]float64
	// stalled: target -> level -> the first repeat whose client stalled
	// (claims.ClientStalled over its measured records; closed loop only).
	stalled map[string]map[int]int
	// missing collects English strings without a translation (tests).
	missing map[string]bool
	// task is the run's task (nil when this benchseal does not know it:
	// the report then speaks as of ASR and draws no task figures); words
	// its words (tw).
	task task.Task
	tw   task.Words
}

func newView(in Input) *view {
	v := &view{in: in, at: map[string]map[int]*schemas.LevelClaims{}}
	v.task, _ = task.ForRun(&in.Run)
	v.tw = task.WordsOf(v.task)
	seen := map[int]bool{}
	for i := range in.Claims.Targets {
		tc := &in.Claims.Targets[i]
		if v.at[tc.Target] == nil {
			v.targets = append(v.targets, tc.Target)
			v.at[tc.Target] = map[int]*schemas.LevelClaims{}
		}
		for j := range tc.Levels {
			l := &tc.Levels[j]
			v.at[tc.Target][l.Concurrency] = l
			if !seen[l.Concurrency] {
				seen[l.Concurrency] = true
				v.levels = append(v.levels, l.Concurrency)
			}
			v.repeats = max(v.repeats, len(l.Repeats))
		}
	}
	sort.Ints(v.levels)
	v.indexLatencies()
	return v
}

// lookup returns the claims of target at concurrency, nil when absent.
func (v *view) lookup(target string, c int) *schemas.LevelClaims { return v.at[target][c] }

// num formats a measured value with about three significant digits.
func num(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case x == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case a >= 0.001:
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

// count formats a counter's growth: a whole number as such.
func count(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// spread is "median [min–max]", or the median alone when every repeat agrees.
func spread(med, lo, hi float64) string {
	if num(lo) == num(hi) {
		return num(med)
	}
	return num(med) + " [" + num(lo) + "–" + num(hi) + "]"
}

func pctNum(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) }
func pct(x float64) string    { return pctNum(x) + " %" }

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// perLevel says "n" when every level has the same count, else the list.
func perLevel(xs []int) string {
	if len(xs) == 0 {
		return "0"
	}
	for _, x := range xs[1:] {
		if x != xs[0] {
			return joinInts(xs)
		}
	}
	return strconv.Itoa(xs[0])
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func gib(bytes float64) string { return strconv.FormatFloat(bytes/(1<<30), 'f', 1, 64) + " GiB" }

func (v *view) models() []string {
	var ms []string
	for _, t := range v.in.Run.Targets {
		if t.Model != "" && !slices.Contains(ms, t.Model) {
			ms = append(ms, t.Model)
		}
	}
	return ms
}

// gpusObserved reports whether the targets' GPUs were observed as verify
// holds them (check 8): every target names its GPUs (run --gpu) and its
// claims carry their samples. env/gpu.json alone describes the machine
// benchseal ran on, which need not be the servers'.
func (v *view) gpusObserved() bool {
	if len(v.in.Run.Targets) == 0 {
		return false
	}
	for _, t := range v.in.Run.Targets {
		if len(t.GPUs) == 0 {
			return false
		}
		sampled := false
		for _, tc := range v.in.Claims.Targets {
			if tc.Target != t.Name {
				continue
			}
			for _, l := range tc.Levels {
				sampled = sampled || l.Median.GPUUtilMean != nil || l.Median.GPUMemPeakBytes != nil
			}
		}
		if !sampled {
			return false
		}
	}
	return true
}

func (v *view) gpuLine() string {
	g := v.in.GPU
	if g == nil {
		return ""
	}
	if !g.Available || len(g.GPUs) == 0 {
		return ""
	}
	count := map[string]int{}
	var names []string
	for _, d := range g.GPUs {
		if count[d.Name] == 0 {
			names = append(names, d.Name)
		}
		count[d.Name]++
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strconv.Itoa(count[n]) + "× " + n
	}
	s := strings.Join(parts, " + ")
	if g.DriverVersion != "" {
		s += " (" + v.tr("driver") + " " + g.DriverVersion
		if g.CUDADriverVersion != "" {
			s += ", CUDA " + g.CUDADriverVersion
		}
		s += ")"
	}
	return s
}

// metric is the name of the run's task's quality figure (task.Quality's
// Metric under the run's scoring), the task's name for a task this build
// does not know.
func (v *view) metric() string {
	sc := v.in.Run.Scoring
	if v.in.Claims.Scoring != nil {
		sc = *v.in.Claims.Scoring
	}
	tk, err := task.ForRun(&v.in.Run)
	if err != nil {
		return task.NameOf(&v.in.Run)
	}
	return tk.Metric(sc)
}

// rtfxCaption is the RTFx table's caption: seconds of audio transcribed
// (ASR), or produced (tts, whose records count the audio produced).
func (v *view) rtfxCaption() string {
	return v.tr("RTFx, seconds of audio %s per second of wall time.", v.word(v.tw.Done))
}

// build lays out the whole report: a failed verification first, then the
// title, the loud warnings, the conclusion and the caveats, so that the
// first screen says who is faster where, by how much, how sure, and what
// may make it unfair; then the numbers and the evidence.
func build(in Input) []block { return newView(in).build() }

func (v *view) build() []block {
	var out []block
	out = append(out, v.failedVerify()...)
	out = append(out, heading{1, v.title()})
	out = append(out, v.warnings()...)
	out = append(out, v.conclusion()...)
	out = append(out, v.caveats()...)
	out = append(out, para{spans: v.summary()})
	out = append(out, v.performance()...)
	out = append(out, v.figures()...)
	out = append(out, v.timeBreakdown()...)
	out = append(out, v.accuracy()...)
	out = append(out, v.errors()...)
	out = append(out, v.cache()...)
	out = append(out, v.telemetry()...)
	out = append(out, v.environment()...)
	out = append(out, v.servers()...)
	out = append(out, v.evidence()...)
	return out
}

func (v *view) title() string {
	names := v.ordered()
	if len(names) == 0 {
		for _, t := range v.in.Run.Targets {
			names = append(names, t.Name)
		}
	}
	s := v.word(v.tw.Title)
	if len(names) > 0 {
		s += ": " + strings.Join(names, " vs ")
	}
	if ms := v.models(); len(ms) == 1 {
		s += " (" + ms[0] + ")"
	}
	return s
}

// ordered is the targets in the conclusion's order: a target that leads
// more of the others comes first (for two targets, the faster first, as
// in the conclusion's "a vs b"); ties keep the claims' order.
func (v *view) ordered() []string {
	names := slices.Clone(v.targets)
	wins := map[string]int{}
	for _, a := range names {
		for _, b := range names {
			if a != b && v.leads(a, b) {
				wins[a]++
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return wins[b] - wins[a] })
	return names
}

// cacheTally sums each target's cache hits over all levels and repeats:
// hits lists the targets whose counter counts whole inputs answered from
// a cache (or names no counter: claims sealed before cache_hits_counter)
// and grew ("a counted 26"), tokens those whose counter counts prompt
// tokens reused (claims.CacheHitsAnswered: internal/engine's row), unseen
// those with no cache counter at all (not observable, never zero).
func (v *view) cacheTally() (hits, tokens, unseen []string) {
	for _, tg := range v.targets {
		seen, n, reused := false, 0.0, 0.0
		counter := ""
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil {
				for _, m := range l.Repeats {
					if m.CacheHits == nil {
						continue
					}
					seen = true
					if answered, known := claims.CacheHitsAnswered(m); known && !answered {
						reused += *m.CacheHits
						counter = m.CacheHitsCounter
					} else {
						n += *m.CacheHits
					}
				}
			}
		}
		switch {
		case !seen:
			unseen = append(unseen, tg)
		case n > 0:
			hits = append(hits, v.tr("%s counted %s", tg, count(n)))
		}
		if reused > 0 {
			tokens = append(tokens, v.tr("%s reused %s prompt tokens (%s)", tg, count(reused), counter))
		}
	}
	return hits, tokens, unseen
}

// cacheProof says what perturbation proved about caches, no more: within
// this run every request was a distinct input; that no answer came from a
// cache held only where every target counts its cache hits and none grew.
// It also says that a run with the same seed re-sends the same variants.
func (v *view) cacheProof() []span {
	hits, tokens, unseen := v.cacheTally()
	s := v.perturbedSpans()
	switch {
	case len(hits) > 0:
		s = append(s, t(" "), b(v.tr("The premise that no server answered from a cache failed: %s cache hits during measurement.", strings.Join(hits, "; "))))
	case len(unseen) == 0 && len(tokens) > 0:
		s = append(s, t(" "+v.tr("No target's counter of requests answered from a cache grew during measurement (%s: prompt tokens a prefix cache reused, not requests answered from it).", strings.Join(tokens, "; "))))
	case len(unseen) == 0:
		s = append(s, t(" "+v.tr("No target's cache-hit counter grew during measurement, so within this run no server answered from a cache it counts.")))
	}
	if len(unseen) > 0 && !verifyCoversCaches(v.in.Verify) { // else the fairness line says it
		s = append(s, t(" "+v.tr("Whether %s answered from a cache is not observable (no cache-hit counter).", strings.Join(unseen, ", "))))
	}
	if v.noInputItems() < len(v.in.Run.Corpus) {
		s = append(s, t(" "+v.tr("A rerun with its seed (%d, in run.json) re-sends the same variants, which a cache kept between runs could answer.", v.in.Run.Seed)))
	}
	return s
}

// noInputItems counts run.json's corpus items without a reference clip
// (tts named voices: schemas.PerturbNoReference), sent unchanged.
func (v *view) noInputItems() int {
	n := 0
	for _, cl := range v.in.Run.Corpus {
		if cl.NoInput() {
			n++
		}
	}
	return n
}

// perturbedSpans is what perturbation changed in the requests: a distinct
// copy of every clip, except for items without a reference clip, which
// had nothing to perturb and were sent unchanged (never "no cache can
// fire": a cache keyed by their text and voice could answer them).
func (v *view) perturbedSpans() []span {
	n, all := v.noInputItems(), len(v.in.Run.Corpus)
	switch {
	case n == 0:
		return []span{t(v.tr("Within this run, every request sent a distinct copy of its %s (one PCM sample changed by one LSB).", v.word(v.tw.Input)))}
	case n == all:
		return []span{b(v.tr("Nothing was perturbed:")), t(" " + v.tr("no item of the corpus has a reference clip (named voices), so every request was sent unchanged and a cache keyed by the text and voice could answer repeats; whether one did is not observed."))}
	}
	return []span{t(v.tr("Within this run, every request of an item with a reference clip sent a distinct copy of that clip with one PCM sample changed by one LSB; the requests of %s without a reference clip (named voices) had nothing to perturb and were sent unchanged every time, so a cache keyed by the text and voice could answer them (whether one did is not observed).",
		v.plural(n, "%d item", "%d items")))}
}

func (v *view) warnings() []block {
	var out []block
	r := v.in.Run
	if !r.Protocol.Perturb {
		out = append(out, para{warn: true, spans: []span{
			b(v.tr("Perturbation was OFF.")),
			t(" " + v.tr("Every request of %s sent the same bytes, so a server with a response, prefix or encoder cache could answer repeats from memory: these numbers may measure the cache, not %s. benchseal verify warns about this run.", v.word(v.tw.Item), v.word(v.tw.Noun))),
		}})
	}
	if !r.Complete {
		why := r.Incomplete
		if why == "" {
			why = v.tr("no reason recorded")
		}
		out = append(out, para{warn: true, spans: []span{
			b(v.tr("This run did not complete")), t(" " + v.tr("(%s): levels or repeats may be missing.", why)),
		}})
	}
	if sim := v.simulated(); len(sim) > 0 {
		spans := []span{
			b(v.tr("Simulated servers.")),
			t(" " + v.tr("%s answered as benchseal's simulator (benchseal sim, named in its /v1/models): these figures measure the simulator, not an engine.", strings.Join(sim, ", "))),
		}
		if names, diff := v.simSettingsDiffer(); len(diff) > 0 && v.in.Verify != nil {
			// The fairness line says what follows from it.
			spans = append(spans, t(" "+v.tr("Their simulator settings differ (%s: %s).", strings.Join(names, " vs "), strings.Join(diff, "; "))))
		} else if len(diff) > 0 {
			spans = append(spans, t(" "+v.tr("Their simulator settings differ (%s: %s), so the comparison is not shown fair: a simulated result is what its settings make it.",
				strings.Join(names, " vs "), strings.Join(diff, "; "))))
		}
		out = append(out, para{warn: true, spans: spans})
	}
	if len(r.Notes) > 0 {
		out = append(out, para{spans: []span{t(v.tr("The run noted:"))}})
		var items [][]span
		for _, n := range r.Notes {
			items = append(items, []span{t(n)})
		}
		out = append(out, bullets{items})
	}
	return out
}

// simulatedTargets names the targets whose captured /v1/models is
// benchseal's simulator's (engine.SimulatorField).
func (v *view) simulatedTargets() []string {
	var out []string
	for _, t := range v.in.Run.Targets {
		if slices.ContainsFunc(v.in.Servers, func(sc schemas.ServerCapture) bool {
			return sc.Target == t.Name && verify.SimulatedPersona(&sc) != ""
		}) {
			out = append(out, t.Name)
		}
	}
	return out
}

// simSettingsDiffer names the settings the simulated targets published
// (engine.SimulatorSettingsField) that differ between them, each as
// "<setting> <a> vs <b>" in the order of the simulated targets it also
// returns (verify.SimSettingsDiffer, what the fairness check words too),
// from each target's capture before the sweep, else after it.
func (v *view) simSettingsDiffer() (targets, diff []string) {
	var caps []*schemas.ServerCapture
	for _, t := range v.in.Run.Targets {
		var found *schemas.ServerCapture
		for _, when := range []string{"before", "after"} {
			for i := range v.in.Servers {
				sc := &v.in.Servers[i]
				if sc.Target == t.Name && sc.When == when && found == nil {
					found = sc
				}
			}
		}
		if found != nil && verify.SimulatedPersona(found) != "" {
			caps = append(caps, found)
			targets = append(targets, t.Name)
		}
	}
	return targets, verify.SimSettingsDiffer(caps)
}

// simulated names the targets whose captured /v1/models is benchseal's
// simulator's (engine.SimulatorField), with the persona each imitates.
func (v *view) simulated() []string {
	var out []string
	for _, t := range v.in.Run.Targets {
		for i := range v.in.Servers {
			sc := &v.in.Servers[i]
			if sc.Target != t.Name {
				continue
			}
			if p := verify.SimulatedPersona(sc); p == t.Name {
				out = append(out, t.Name)
				break
			} else if p != "" {
				out = append(out, v.tr("%s (the %s persona)", t.Name, p))
				break
			}
		}
	}
	return out
}

func (v *view) summary() []span {
	r := v.in.Run
	var s []span
	var desc []string
	for _, t := range r.Targets {
		desc = append(desc, t.Name)
	}
	// The title names the targets and a single model: the sentence is
	// said only where it adds a model or GPUs the title does not name.
	gpu := v.gpuLine()
	if gpu != "" && !v.gpusObserved() {
		gpu = ""
	}
	lead := len(v.models()) > 1 || gpu != "" || len(v.targets) != len(r.Targets)
	if lead {
		s = append(s, t(v.tr("This report compares %s (%s)", v.plural(len(r.Targets), "%d target", "%d targets"), strings.Join(desc, ", "))))
		if ms := v.models(); len(ms) > 0 {
			s = append(s, t(v.tr(" serving %s", strings.Join(ms, ", "))))
		}
		if gpu != "" {
			s = append(s, t(v.tr(" on %s", gpu)))
		}
	}
	first := len(s) // the corpus sentence's first span
	var secs float64
	refs := 0
	for _, cl := range r.Corpus {
		secs += cl.Seconds
		if cl.Text != "" {
			refs++
		}
	}
	if v.tw.Texts {
		s = append(s, v.textCorpus()...)
	} else {
		s = append(s, t(v.tr(". The corpus has %s (%s s of audio", v.plural(len(r.Corpus), "%d clip", "%d clips"), num(secs))))
	}
	switch {
	case v.tw.Texts:
	case refs == 0:
		s = append(s, t(v.tr(", no reference transcripts).")))
	case refs == len(r.Corpus):
		s = append(s, t(v.tr(", all with reference transcripts).")))
	default:
		s = append(s, t(v.tr(", %d with reference transcripts).", refs)))
	}
	if !lead && len(s) > first {
		// Its first sentence: no ". " joining it to one before.
		s[first].text = strings.TrimPrefix(strings.TrimPrefix(s[first].text, ". "), "。")
	}
	p := r.Protocol
	if p.Mode == schemas.ModeOpen {
		rates := make([]string, len(p.RequestRates))
		for i, x := range p.RequestRates {
			rates[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		bound := v.tr("no bound on requests in flight")
		if p.MaxConcurrency > 0 {
			bound = v.tr("at most %d in flight", p.MaxConcurrency)
		}
		// The records (c<level>-r<R>.jsonl) number the levels in this order.
		s = append(s, t(v.tr(" Protocol: open loop at offered rates %s requests per second (levels %s of the records, in that order; arrivals of burstiness %s, %s); %s measured requests per level and repeat",
			strings.Join(rates, ", "), joinInts(p.Levels), p.Burstiness, bound, perLevel(p.Requests))))
	} else {
		s = append(s, t(v.tr(" Protocol: closed loop at concurrency %s; %s measured requests per level and repeat", joinInts(p.Levels), perLevel(p.Requests))))
	}
	if p.Passes > 0 {
		s = append(s, t(" ("+v.plural(p.Passes, "%d pass over the corpus", "%d passes over the corpus")+")"))
	}
	if w := perLevel(p.Warmup); w == "1" {
		s = append(s, t(v.tr(" after 1 warm-up request")))
	} else {
		s = append(s, t(v.tr(" after %s warm-up requests", w)))
	}
	if fs := p.FixedSchedule; fs != nil && p.Mode == schemas.ModeOpen {
		s = append(s, t(v.tr(" (a fixed schedule, run --fixed-schedule: the measured requests sent at the %d offsets of a trace whose SHA-256 is %s, their mean rate the level's)", len(fs.OffsetsNs), fs.SourceSHA256)))
	}
	if fr := p.FindRate; fr != nil && p.Mode == schemas.ModeOpen {
		steps := make([]claims.SearchStep, len(fr.Steps))
		for i, st := range fr.Steps {
			steps[i] = claims.SearchStep{Rate: st.Rate, Pass: st.Pass}
		}
		lo, hi := claims.Bracket(steps)
		rate := func(x float64) string {
			if x == 0 {
				return v.tr("none")
			}
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		s = append(s, t(v.tr(" (a rate search, run --find-rate: from %s requests per second, doubling while a level kept up and met the SLO in every repeat, then halving the bracket until within %s %%; the highest rate that passed: %s requests per second, the lowest that failed above it: %s)",
			rate(fr.StartRPS), strconv.FormatFloat(100*fr.Precision, 'g', -1, 64), rate(lo), rate(hi))))
	}
	if ru := p.RampUp; ru != nil && p.Mode == schemas.ModeOpen {
		strategy := v.tr("linear")
		if ru.Strategy == "exponential" {
			strategy = v.tr("exponential")
		}
		s = append(s, t(v.tr(" arriving on a %s ramp from %s requests per second to the level's rate over %s s", strategy, strconv.FormatFloat(ru.StartRPS, 'g', -1, 64), strconv.FormatFloat(ru.DurationS, 'g', -1, 64))))
	}
	s = append(s, t(v.tr("; %s", v.plural(p.Repeats, "%d repeat", "%d repeats"))))
	if p.TargetOrder == "alternate" && len(r.Targets) > 1 {
		s = append(s, t(v.tr(", targets interleaved in alternating order")))
	}
	if p.Stream {
		s = append(s, t(v.tr("; streamed responses")))
	}
	switch {
	case v.task != nil && (p.SuccessRule == v.task.SuccessRule() || p.SuccessRule == "") && v.tw.Success != nil:
		s = append(s, t(v.tr("; ")+v.word(v.tw.Success)))
	default: // a rule this benchseal does not word, by the name run.json records
		s = append(s, t(v.tr("; success is the %s task's rule ", task.NameOf(&v.in.Run))), c(p.SuccessRule), t(". "))
	}
	if p.Perturb {
		s = append(s, v.cacheProof()...)
	} else {
		s = append(s, b(v.tr("Perturbation was OFF: repeated %s sent identical bytes.", v.word(v.tw.Inputs))))
	}
	s = append(s, t(v.tr(" Tables: the median over repeats, [min–max] where repeats differ, (N % failed) where any failed, — where none succeeded.")))
	return s
}

func (v *view) levelsRows(cell func(l *schemas.LevelClaims) string) [][]string {
	var rows [][]string
	for _, c := range v.levels {
		row := []string{v.levelLabel(c)}
		for _, tg := range v.targets {
			if l := v.lookup(tg, c); l != nil {
				row = append(row, cell(l))
			} else {
				row = append(row, "–")
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func allRight(n int) []bool {
	r := make([]bool, n)
	for i := range r {
		r[i] = true
	}
	return r
}

func (v *view) byTargetHeader() []string {
	return append([]string{v.levelHeader()}, v.targets...)
}

// tally sums a level's requests over its repeats.
func tally(l *schemas.LevelClaims) (requests, succeeded, failed int) {
	for _, m := range l.Repeats {
		requests += m.Requests
		succeeded += m.Succeeded
		failed += m.Failed
	}
	return
}

// failedShare is the failed share of a level's requests over its repeats.
func failedShare(l *schemas.LevelClaims) float64 {
	req, _, failed := tally(l)
	if req == 0 {
		return 0
	}
	return float64(failed) / float64(req)
}

// pctShort formats a share as a percentage with at most one decimal
// ("75 %", "1.6 %", "0.3 %").
func pctShort(x float64) string {
	p := 100 * x
	if p >= 10 || p == math.Trunc(p) {
		return strconv.FormatFloat(p, 'f', 0, 64) + " %"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}

// measured formats a metric of a level: "—" without a successful request,
// else cell, with the failed share beside it when some failed.
func (v *view) measured(l *schemas.LevelClaims, cell string) string {
	if _, ok, _ := tally(l); ok == 0 {
		return "—"
	}
	if f := failedShare(l); f > 0 {
		return cell + " " + v.tr("(%s failed)", pctShort(f))
	}
	return cell
}

func (v *view) performance() []block {
	if len(v.levels) == 0 {
		return []block{heading{2, v.tr("Results")}, para{spans: []span{t(v.tr("claims.json holds no measured level."))}}}
	}
	n := len(v.targets) + 1
	out := []block{
		heading{2, v.tr("Throughput")},
		v.fig(Throughput),
		table{
			caption: v.tr("Successful requests per second."),
			header:  v.byTargetHeader(), right: allRight(n),
			rows: v.levelsRows(func(l *schemas.LevelClaims) string {
				return v.measured(l, spread(l.Median.ReqPerS, l.Min.ReqPerS, l.Max.ReqPerS))
			}),
		},
		// The RTFx table is reference (throughput times the audio per
		// request): report.html's, REPORT.md points to it.
		mdOnly{para{spans: []span{t(v.tr("%s by level: report.html.", v.word(v.tw.RTFxHeading)))}}},
		htmlOnly{heading{2, v.word(v.tw.RTFxHeading)}},
		htmlOnly{v.fig(RTFx)},
		htmlOnly{table{
			caption: v.rtfxCaption(),
			header:  v.byTargetHeader(), right: allRight(n),
			rows: v.levelsRows(func(l *schemas.LevelClaims) string {
				return v.measured(l, spreadX(deref(l.Median.RTFx), deref(l.Min.RTFx), deref(l.Max.RTFx)))
			}),
		}},
		heading{2, v.tr("Latency")},
		v.fig(Latency),
	}
	// The percentiles shown: run --percentiles's (claims.json's
	// latency_percentiles), else p50, p90 and p99.
	type pct struct {
		p   float64
		get func(m *schemas.Metrics) *float64
	}
	pcts := []pct{
		{50, func(m *schemas.Metrics) *float64 { return m.LatencyP50S }},
		{90, func(m *schemas.Metrics) *float64 { return m.LatencyP90S }},
		{99, func(m *schemas.Metrics) *float64 { return m.LatencyP99S }},
	}
	if asked := v.askedPercentiles(); len(asked) > 0 {
		pcts = pcts[:0]
		for i, p := range asked {
			pcts = append(pcts, pct{p, func(m *schemas.Metrics) *float64 {
				if i < len(m.LatencyPercentiles) {
					return m.LatencyPercentiles[i].LatencyS
				}
				return nil
			}})
		}
	}
	header := []string{v.levelHeader(), v.tr("target")}
	for _, p := range pcts {
		header = append(header, "p"+strconv.FormatFloat(p.p, 'f', -1, 64))
	}
	var rows [][]string
	few := false
	for _, c := range v.levels {
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			row := []string{v.levelLabel(c), tg}
			if _, ok, _ := tally(l); ok == 0 {
				for range pcts {
					row = append(row, "—")
				}
			} else {
				// A percentile of fewer successful requests per repeat
				// than claims.StableRequests (the rule replay and compare
				// call UNSTABLE by) is marked "*".
				least := -1 // successful requests of the leanest repeat
				for _, m := range l.Repeats {
					if least < 0 || m.Succeeded < least {
						least = m.Succeeded
					}
				}
				tail := func(p float64, cell string) string {
					if least < claims.StableRequests(p) {
						few = true
						return cell + " *"
					}
					return cell
				}
				for _, p := range pcts {
					cell := spread(deref(p.get(&l.Median)), deref(p.get(&l.Min)), deref(p.get(&l.Max)))
					if p.p > 0 && p.p < 100 {
						cell = tail(p.p/100, cell)
					}
					row = append(row, cell)
				}
			}
			if _, _, failed := tally(l); failed > 0 {
				row[1] += " " + v.tr("(%s failed)", pctShort(failedShare(l)))
			}
			rows = append(rows, row)
		}
	}
	right := allRight(len(header))
	right[1] = false
	caption := v.tr("Latency of successful requests in seconds, request sent to response read.")
	if few {
		caption += v.tr(" * fewer successful requests per repeat than bound the percentile at 95 %% (p50 needs %d, p90 %d, p99 %d): a tail, not a measurement.",
			claims.StableRequests(0.50), claims.StableRequests(0.90), claims.StableRequests(0.99))
	}
	out = append(out, table{caption: caption, header: header, right: right, rows: rows})
	return append(out, v.openLoop()...)
}

// spreadX is spread with a "×" after each number (RTFx).
func spreadX(med, lo, hi float64) string {
	if num(lo) == num(hi) {
		return num(med) + "×"
	}
	return num(med) + "× [" + num(lo) + "×–" + num(hi) + "×]"
}

func (v *view) accuracy() []block {
	unit := v.metric()
	out := []block{heading{2, v.tr("Accuracy (%s)", unit)}}
	any := false
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.Quality != nil {
				any = true
			}
		}
	}
	rt := v.in.Run.Protocol.RoundTrip
	if !any && rt != nil {
		return append(out, para{spans: []span{t(v.tr("Not observed: the round trip through %s heard no answer (roundtrip/asr.json says what was sent and why not).", rt.ASR))}})
	}
	if !any && v.tw.NoQuality != nil {
		return append(out, para{spans: []span{t(v.word(v.tw.NoQuality))}})
	}
	if !any {
		return append(out, para{spans: []span{t(v.tr("No references: the corpus has no reference transcripts, so %s was not computed.", unit))}})
	}
	sc := v.in.Run.Scoring
	if v.in.Claims.Scoring != nil {
		sc = *v.in.Claims.Scoring
	}
	refs := 0
	for _, cl := range v.in.Run.Corpus {
		if cl.Text != "" {
			refs++
		}
	}
	var covered string
	switch {
	case rt != nil:
		covered = v.tr("What %s (model %s) heard of each answer after the sweep, against the text the request spoke; an answer it did not hear is not scored. The figure measures the synthesiser and this recogniser together.", rt.ASR, rt.Model)
	case refs == len(v.in.Run.Corpus): // the protocol's paragraph says so
	default:
		covered = v.tr("Only requests for the %d of %d clips with a reference transcript are scored.", refs, len(v.in.Run.Corpus))
	}
	deaf := v.notHeard()
	out = append(out, table{
		caption: strings.TrimSpace(v.tr("%s of the successful measured requests.", unit) + " " + covered),
		header:  v.byTargetHeader(), right: allRight(len(v.targets) + 1),
		rows: v.levelsRows(func(l *schemas.LevelClaims) string {
			if l.Median.Quality == nil {
				return "—"
			}
			if rt != nil && *l.Median.Quality >= 1 {
				return v.tr("not heard")
			}
			if l.Min.Quality != nil && l.Max.Quality != nil && pct(*l.Min.Quality) != pct(*l.Max.Quality) {
				return v.measured(l, pctNum(*l.Median.Quality)+" ["+pctNum(*l.Min.Quality)+"–"+pctNum(*l.Max.Quality)+"] %")
			}
			return v.measured(l, pct(*l.Median.Quality))
		}),
	})
	if len(deaf) > 0 {
		out = append(out, para{spans: kv(v.tr("Not heard"), t(v.tr("%s: the recogniser heard no speech in the answers (%s at or above 100 %%; an empty transcript scores 100 %%), so this is the round trip failing, not an accuracy figure; check that %s accepts the audio produced.", strings.Join(deaf, "; "), unit, rt.ASR)))})
	}
	detail := []span{t(v.tr("Scored with normalizer ")), c(orDash(sc.Normalizer)), t(v.tr(", aligner ")), c(orDash(sc.Aligner)), t(v.tr(", failed requests ")), c(orDash(sc.Failures)), t(".")}
	return append(out, para{spans: detail})
}

// notHeard words, per target of a round trip, the levels where the
// recogniser heard no speech in its answers (median quality figure at or
// above 100 %: an empty transcript scores 100 %): "b at C = 1, 4 (104.65
// %)"; nil without a round trip or such a level.
func (v *view) notHeard() []string {
	if v.in.Run.Protocol.RoundTrip == nil {
		return nil
	}
	var out []string
	for _, tg := range v.targets {
		var labels []string
		worst := 0.0
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.Quality != nil && *l.Median.Quality >= 1 {
				labels = append(labels, v.levelLabel(c))
				worst = max(worst, *l.Median.Quality)
			}
		}
		if len(labels) > 0 {
			out = append(out, v.tr("%s %s (up to %s)", tg, v.atLevels(labels), pct(worst)))
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errorClasses sums a level's errors by class, "class n, class n" sorted.
func (v *view) errorClasses(l *schemas.LevelClaims) string {
	classes := map[string]int{}
	for _, m := range l.Repeats {
		for k, n := range m.Errors {
			classes[k] += n
		}
	}
	names := make([]string, 0, len(classes))
	for k := range classes {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		name := k
		if name == "" {
			name = v.tr("unclassified")
		}
		parts[i] = name + " " + strconv.Itoa(classes[k])
	}
	return strings.Join(parts, ", ")
}

func (v *view) errors() []block {
	var rows [][]string
	for _, tg := range v.targets {
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			requests, _, failed := tally(l)
			if failed == 0 {
				continue
			}
			rows = append(rows, []string{tg, strconv.Itoa(c), v.tr("%d of %d", failed, requests) + " (" + pctShort(failedShare(l)) + ")", v.errorClasses(l)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return []block{heading{2, v.tr("Errors")}, table{
		caption: v.tr("Failed measured requests, summed over all repeats, by error class."),
		header:  []string{v.tr("target"), v.levelHeader(), v.tr("failed"), v.tr("by class")},
		right:   []bool{false, true, true, false},
		rows:    rows,
	}}
}

func (v *view) cache() []block {
	any := false
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.CacheHits != nil {
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	cell := func(l *schemas.LevelClaims) string {
		if l.Median.CacheHits == nil {
			return v.tr("not observable")
		}
		cell := spread(*l.Median.CacheHits, deref(l.Min.CacheHits), deref(l.Max.CacheHits))
		if answered, known := claims.CacheHitsAnswered(l.Median); known && !answered {
			// A prefix cache's unit: tokens reused, not requests.
			return v.tr("%s prompt tokens", cell)
		}
		return cell
	}
	// Every target the same at every level (0, or not observable): one
	// sentence says what a table of it would.
	var same []string
	for _, tg := range v.targets {
		first, all := "", true
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil {
				if x := cell(l); first == "" {
					first = x
				} else if x != first {
					all = false
				}
			}
		}
		if !all || first == "" {
			same = nil
			break
		}
		same = append(same, tg+" "+first)
	}
	if len(same) == len(v.targets) {
		return []block{heading{2, v.tr("Server cache hits")},
			htmlOnly{para{spans: []span{t(v.tr("Cache-hit counter growth during measurement (/metrics), at every level: %s. With perturbation on, any hit is work reused across distinct inputs.", strings.Join(same, ", ")))}}},
			mdOnly{para{spans: []span{t(v.tr("Cache-hit counter growth during measurement (/metrics), at every level: %s.", strings.Join(same, ", ")))}}}}
	}
	return []block{heading{2, v.tr("Server cache hits")}, table{
		caption: v.tr("Growth of the server's cache-hit counter during measurement (from its /metrics), median [min–max] over repeats; \"not observable\" where the server exposes no such counter. With perturbation on, any hit means the server reused work across distinct inputs."),
		header:  v.byTargetHeader(), right: allRight(len(v.targets) + 1),
		rows: v.levelsRows(cell),
	}}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func (v *view) telemetry() []block {
	type col struct {
		name string
		get  func(m *schemas.Metrics) *float64
		fmt  func(float64) string
		// each is a GPU's own value in a GPUPeak (memory and power only)
		each func(p *schemas.GPUPeak) *float64
	}
	watts := func(x float64) string { return num(x) + " W" }
	cols := []col{
		{"GPU util mean", func(m *schemas.Metrics) *float64 { return m.GPUUtilMean }, func(x float64) string { return num(x) + " %" }, nil},
		{"GPU util max", func(m *schemas.Metrics) *float64 { return m.GPUUtilMax }, func(x float64) string { return num(x) + " %" }, nil},
		{"GPU memory peak", func(m *schemas.Metrics) *float64 { return m.GPUMemPeakBytes }, gib,
			func(p *schemas.GPUPeak) *float64 { return p.MemPeakBytes }},
		{"GPU power peak", func(m *schemas.Metrics) *float64 { return m.GPUPowerPeakW }, watts,
			func(p *schemas.GPUPeak) *float64 { return p.PowerPeakW }},
		{"host CPU mean", func(m *schemas.Metrics) *float64 { return m.HostCPUMean }, func(x float64) string { return num(x) + " %" }, nil},
	}
	var used []col
	notes, multi := false, false
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil {
				notes = notes || l.Median.TelemetryNote != ""
				multi = multi || len(l.Median.GPUPeaks) > 1
			}
		}
	}
	for _, cl := range cols {
		for _, tg := range v.targets {
			for _, c := range v.levels {
				if l := v.lookup(tg, c); l != nil && cl.get(&l.Median) != nil {
					used = append(used, cl)
					goto next
				}
			}
		}
	next:
	}
	if len(used) == 0 && !notes {
		return nil
	}
	if len(used) == 0 {
		used = cols // every window too short: say so in each column
	}
	caption := v.tr("Sampled during measurement on the client machine, median over repeats.")
	note := ""
	if notes {
		note = v.tr(" \"not observed\": the measured window held fewer than 2 samples; a shorter --sample-interval samples it.")
	}
	caption += note
	if len(used) == 1 && !multi && !notes {
		// One figure: a level's row holds every target's, as the
		// throughput table does. The client host's CPU alone is one
		// line of REPORT.md's Environment (hostCPULine); the table is
		// report.html's.
		wrap := func(bl block) block { return bl }
		if used[0].name == "host CPU mean" {
			wrap = func(bl block) block { return htmlOnly{bl} }
		}
		return []block{wrap(heading{2, v.tr("Telemetry")}), wrap(table{
			caption: v.tr("%s, sampled during measurement on the client machine: median over repeats.", upperFirst(v.tr(used[0].name))) + note,
			header:  v.byTargetHeader(), right: allRight(len(v.targets) + 1),
			rows: v.levelsRows(func(l *schemas.LevelClaims) string {
				switch p := used[0].get(&l.Median); {
				case p == nil && l.Median.TelemetryNote != "":
					return v.tr(l.Median.TelemetryNote)
				case p == nil:
					return "–"
				default:
					return used[0].fmt(*p)
				}
			}),
		})}
	}
	header := []string{v.tr("target"), v.levelHeader()}
	right := []bool{false, true}
	for _, cl := range used {
		name := v.tr(cl.name)
		if multi && cl.each != nil {
			name = v.tr("%s (sum of GPUs)", name)
		}
		header = append(header, name)
		right = append(right, true)
	}
	var rows [][]string
	for _, tg := range v.targets {
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			row := []string{tg, strconv.Itoa(c)}
			for _, cl := range used {
				p := cl.get(&l.Median)
				switch {
				case p == nil && l.Median.TelemetryNote != "":
					row = append(row, v.tr(l.Median.TelemetryNote))
				case p == nil:
					row = append(row, "–")
				case cl.each != nil && len(l.Median.GPUPeaks) > 1:
					var each []string
					for _, g := range l.Median.GPUPeaks {
						if x := cl.each(&g); x != nil {
							each = append(each, "GPU "+strconv.Itoa(g.GPU)+": "+cl.fmt(*x))
						}
					}
					row = append(row, cl.fmt(*p)+" ("+strings.Join(each, ", ")+")")
				default:
					row = append(row, cl.fmt(*p))
				}
			}
			rows = append(rows, row)
		}
	}
	if multi {
		caption += v.tr(" For a target on several GPUs, memory and power peaks are the largest sum over its GPUs at one sampling instant (not one GPU's reading); each GPU's own peak follows in brackets.")
	}
	return []block{heading{2, v.tr("Telemetry")}, table{caption: caption, header: header, right: right, rows: rows}}
}

// environment lists the GPU, the client host and the run's times:
// report.html whole, REPORT.md without the host's OS release, kernel and
// core count, with the client host's CPU (hostCPULine) where the
// Telemetry section holds only that.
func (v *view) environment() []block {
	var items, md [][]span
	both := func(it []span) {
		items = append(items, it)
		md = append(md, it)
	}
	if g := v.gpuLine(); g != "" && v.gpusObserved() {
		both(kv(v.tr("GPU"), t(g)))
	} else if g != "" {
		both(kv(v.tr("GPU"), t(v.tr("the client machine has %s; the targets' GPUs were not observed (each target names its GPUs with --gpu NAME=INDEX, which samples them)", g))))
	} else if g := v.in.GPU; g != nil {
		why := ""
		if g.Reason != "" {
			why = " (" + g.Reason + ")"
		}
		both(kv(v.tr("GPU"), t(v.tr("not observed: the client machine could not query a GPU")+why)))
	}
	if h := v.in.Host; h != nil {
		var parts, short []string
		if h.CPUModel != "" {
			parts = append(parts, h.CPUModel)
		}
		cpus := v.plural(h.CPUs, "%d logical CPU", "%d logical CPUs")
		short = append(slices.Clone(parts), cpus)
		if h.CPUCores > 0 {
			cpus += " (" + v.plural(h.CPUCores, "%d core", "%d cores") + ")"
		}
		parts = append(parts, cpus)
		if h.MemoryBytes > 0 {
			parts = append(parts, v.tr("%s memory", gib(float64(h.MemoryBytes))))
			short = append(short, v.tr("%s memory", gib(float64(h.MemoryBytes))))
		}
		os := h.OS + "/" + h.Arch
		short = append(short, os)
		if h.OSRelease != "" {
			os = h.OSRelease + ", " + os
		}
		if h.Kernel != "" {
			os += ", " + v.tr("kernel") + " " + h.Kernel
		}
		parts = append(parts, os)
		items = append(items, kv(v.tr("Client host"), t(strings.Join(parts, "; "))))
		md = append(md, kv(v.tr("Client host"), t(strings.Join(short, "; "))))
		if h.LoadAvg != nil {
			both(kv(v.tr("Load average at start"), t(num(h.LoadAvg[0])+", "+num(h.LoadAvg[1])+", "+num(h.LoadAvg[2]))))
		}
	}
	r := v.in.Run
	if !r.StartedAt.IsZero() {
		seed := ", " + v.tr("seed") + " " + strconv.FormatUint(r.Seed, 10)
		from, to := r.StartedAt.UTC(), r.EndedAt.UTC()
		when, short := from.Format("2006-01-02 15:04:05 UTC"), ""
		if !r.EndedAt.IsZero() {
			when += " " + v.tr("to") + " " + to.Format("2006-01-02 15:04:05 UTC")
			if from.Format("2006-01-02") == to.Format("2006-01-02") {
				short = from.Format("2006-01-02 15:04:05") + "–" + to.Format("15:04:05 UTC")
			}
		}
		items = append(items, kv(v.tr("Run"), t(when+seed)))
		if short == "" {
			short = when
		}
		md = append(md, kv(v.tr("Run"), t(short+seed)))
	}
	if cpu := v.hostCPULine(); cpu != nil {
		md = append(md, cpu)
	}
	switch {
	case len(md) == 0:
		return nil
	case len(items) == 0:
		return []block{mdOnly{heading{2, v.tr("Environment")}}, mdOnly{bullets{md}}}
	}
	return []block{heading{2, v.tr("Environment")}, htmlOnly{bullets{items}}, mdOnly{bullets{md}}}
}

// hostCPULine is REPORT.md's line for a telemetry table that holds only
// the client host's CPU mean (report.html's Telemetry table): its range
// over the targets' levels; nil where the Telemetry section holds more.
func (v *view) hostCPULine() []span {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, tg := range v.targets {
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			m := &l.Median
			if m.TelemetryNote != "" || len(m.GPUPeaks) > 1 || m.GPUUtilMean != nil || m.GPUUtilMax != nil || m.GPUMemPeakBytes != nil || m.GPUPowerPeakW != nil {
				return nil
			}
			if m.HostCPUMean != nil {
				lo, hi, n = min(lo, *m.HostCPUMean), max(hi, *m.HostCPUMean), n+1
			}
		}
	}
	if n == 0 {
		return nil
	}
	r := num(lo) + " %"
	if num(lo) != num(hi) {
		r = num(lo) + "–" + num(hi) + " %"
	}
	return kv(v.tr("Client host CPU"), t(v.tr("mean %s during measurement, median over repeats (by level: report.html)", r)))
}

func (v *view) servers() []block {
	caps := map[string]*schemas.ServerCapture{}
	for i := range v.in.Servers {
		sc := &v.in.Servers[i]
		if caps[sc.Target] == nil {
			caps[sc.Target] = sc
		}
	}
	// report.html lists each target's facts and probe bodies; REPORT.md
	// has a line a target: the same facts, its probes' status codes (and
	// /version's body) only.
	var out []block
	var lines [][]span
	for _, tg := range v.in.Run.Targets {
		var items [][]span
		var probes []span
		items = append(items, kv("URL", c(tg.URL)))
		if tg.Model != "" {
			items = append(items, kv(v.tr("Model"), c(tg.Model)))
		}
		// REPORT.md's line leaves out the model the title names.
		skip := -1
		if tg.Model != "" && len(v.models()) == 1 {
			skip = len(items) - 1
		}
		if len(tg.RequestFields) > 0 {
			keys := make([]string, 0, len(tg.RequestFields))
			for k := range tg.RequestFields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			pairs := make([]string, len(keys))
			for i, k := range keys {
				pairs[i] = k + "=" + tg.RequestFields[k]
			}
			items = append(items, kv(v.tr("Request fields"), c(strings.Join(pairs, " "))))
		}
		if tg.LaunchCommand != "" {
			items = append(items, kv(v.tr("Launched with"), c(clipText(tg.LaunchCommand, 400))))
		}
		if len(tg.GPUs) > 0 {
			items = append(items, kv(v.tr("GPUs"), t(joinInts(tg.GPUs))))
		}
		facts := len(items)
		if sc := caps[tg.Name]; sc != nil {
			for _, p := range sc.Probes {
				if p.Status == 0 {
					continue
				}
				if len(probes) > 0 {
					probes = append(probes, t(", "))
				}
				probes = append(probes, t(p.Path+" "+strconv.Itoa(p.Status)))
				if p.Path == "/version" {
					if body := clipText(p.Body, 80); body != "" {
						probes = append(probes, t(" "), c(body))
					}
				}
				line := kv("GET "+p.Path, t(strconv.Itoa(p.Status)))
				// A /metrics exposition's first 160 characters are its
				// HELP lines, not a description: servers/ keeps it whole.
				if body := clipText(p.Body, 160); body != "" && p.Path != "/metrics" {
					line = append(line, t(" "), c(body))
				} else if body != "" {
					line = append(line, t(" "+v.tr("(%d bytes, kept in servers/)", len(p.Body))))
				}
				items = append(items, line)
			}
		}
		out = append(out, htmlOnly{heading{3, tg.Name}}, htmlOnly{bullets{items}})
		line := []span{b(tg.Name + ":"), t(" ")}
		for i, it := range items[:facts] {
			if i == skip {
				continue
			}
			if i > 0 {
				line = append(line, t("; "))
			}
			// "URL: x" as "URL x": the bold names are the page's.
			line = append(line, t(strings.TrimSuffix(it[0].text, ":")))
			line = append(line, it[1:]...)
		}
		if len(probes) > 0 {
			line = append(append(line, t("; GET ")), probes...)
		}
		lines = append(lines, line)
	}
	if len(out) == 0 {
		return nil
	}
	return append([]block{heading{2, v.tr("Targets")}, mdOnly{bullets{lines}}}, out...)
}

// askedPercentiles are the latency percentiles run --percentiles asked
// for, as the first level's median in claims.json lists them; none when
// the run asked for none.
func (v *view) askedPercentiles() []float64 {
	for _, c := range v.levels {
		for _, tg := range v.targets {
			if l := v.lookup(tg, c); l != nil {
				var out []float64
				for _, lp := range l.Median.LatencyPercentiles {
					out = append(out, lp.P)
				}
				return out
			}
		}
	}
	return nil
}
