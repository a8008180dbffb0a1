package report

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchseal/benchseal/schemas"
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

type figure struct{ chart Chart }

// view indexes the claims for the tables and charts.
type view struct {
	in      Input
	targets []string                                // claims order
	levels  []int                                   // ascending
	at      map[string]map[int]*schemas.LevelClaims // target -> concurrency
	repeats int
}

func newView(in Input) *view {
	v := &view{in: in, at: map[string]map[int]*schemas.LevelClaims{}}
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
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

func (v *view) gpuLine() string {
	g := v.in.GPU
	if g == nil {
		return ""
	}
	if !g.Available || len(g.GPUs) == 0 {
		if g.Reason != "" {
			return "no GPU seen by the client (" + g.Reason + ")"
		}
		return "no GPU seen by the client"
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
		s += " (driver " + g.DriverVersion
		if g.CUDADriverVersion != "" {
			s += ", CUDA " + g.CUDADriverVersion
		}
		s += ")"
	}
	return s
}

func (v *view) unit() (name string, char bool) {
	sc := v.in.Run.Scoring
	if v.in.Claims.Scoring != nil {
		sc = *v.in.Claims.Scoring
	}
	if sc.Unit == "char" {
		return "CER", true
	}
	return "WER", false
}

// build lays out the whole report.
func build(in Input) []block {
	v := newView(in)
	var out []block
	out = append(out, heading{1, v.title()})
	out = append(out, v.warnings()...)
	out = append(out, para{spans: v.summary()})
	out = append(out, v.performance()...)
	out = append(out, v.accuracy()...)
	out = append(out, v.errors()...)
	out = append(out, v.cache()...)
	out = append(out, v.telemetry()...)
	out = append(out, v.environment()...)
	out = append(out, v.servers()...)
	out = append(out, v.howToCheck()...)
	return out
}

func (v *view) title() string {
	names := v.targets
	if len(names) == 0 {
		for _, t := range v.in.Run.Targets {
			names = append(names, t.Name)
		}
	}
	s := "Speech-to-text benchmark"
	if len(names) > 0 {
		s += ": " + strings.Join(names, " vs ")
	}
	if ms := v.models(); len(ms) == 1 {
		s += " (" + ms[0] + ")"
	}
	return s
}

func (v *view) warnings() []block {
	var out []block
	r := v.in.Run
	if v.in.Verdict != "" {
		out = append(out, para{warn: !v.in.VerdictOK, spans: []span{b("benchseal verify:"), t(" " + v.in.Verdict)}})
	}
	if !r.Protocol.Perturb {
		out = append(out, para{warn: true, spans: []span{
			b("Perturbation was OFF."),
			t(" Every request of a clip sent the same bytes, so a server with a response, prefix or encoder cache could answer repeats from memory: these numbers may measure the cache, not transcription. benchseal verify warns about this run."),
		}})
	}
	if !r.Complete {
		why := r.Incomplete
		if why == "" {
			why = "no reason recorded"
		}
		out = append(out, para{warn: true, spans: []span{
			b("This run did not complete"), t(" (" + why + "): levels or repeats may be missing."),
		}})
	}
	if len(r.Notes) > 0 {
		out = append(out, para{spans: []span{t("The run noted:")}})
		var items [][]span
		for _, n := range r.Notes {
			items = append(items, []span{t(n)})
		}
		out = append(out, bullets{items})
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
	s = append(s, t("This report compares "+plural(len(r.Targets), "target", "targets")+" ("+strings.Join(desc, ", ")+")"))
	if ms := v.models(); len(ms) > 0 {
		s = append(s, t(" serving "+strings.Join(ms, ", ")))
	}
	if g := v.gpuLine(); g != "" {
		s = append(s, t(" on "+g))
	}
	var secs float64
	refs := 0
	for _, cl := range r.Corpus {
		secs += cl.Seconds
		if cl.Text != "" {
			refs++
		}
	}
	s = append(s, t(". The corpus has "+plural(len(r.Corpus), "clip", "clips")+" ("+num(secs)+" s of audio"))
	switch refs {
	case 0:
		s = append(s, t(", no reference transcripts)."))
	case len(r.Corpus):
		s = append(s, t(", all with reference transcripts)."))
	default:
		s = append(s, t(", "+strconv.Itoa(refs)+" with reference transcripts)."))
	}
	p := r.Protocol
	s = append(s, t(" Protocol: closed loop at concurrency "+joinInts(p.Levels)+
		"; "+perLevel(p.Requests)+" measured requests per level and repeat"))
	if p.Passes > 0 {
		s = append(s, t(" ("+plural(p.Passes, "pass", "passes")+" over the corpus)"))
	}
	s = append(s, t(" after "+perLevel(p.Warmup)+" warm-up requests; "+plural(p.Repeats, "repeat", "repeats")))
	if p.TargetOrder == "alternate" && len(r.Targets) > 1 {
		s = append(s, t(", targets interleaved in alternating order"))
	}
	if p.Stream {
		s = append(s, t("; streamed responses"))
	}
	s = append(s, t("; success is HTTP 200 with non-empty text. "))
	if p.Perturb {
		s = append(s, t("Every request sent a distinct copy of its clip with one PCM sample changed by one LSB, so no server could answer from a cache."))
	} else {
		s = append(s, b("Perturbation was OFF: repeated clips sent identical bytes."))
	}
	s = append(s, t(" Tables show the median over repeats, with [min–max] where repeats differ."))
	return s
}

func (v *view) levelsRows(cell func(l *schemas.LevelClaims) string) [][]string {
	var rows [][]string
	for _, c := range v.levels {
		row := []string{strconv.Itoa(c)}
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

func (v *view) byTargetHeader() []string { return append([]string{"concurrency"}, v.targets...) }

func (v *view) performance() []block {
	if len(v.levels) == 0 {
		return []block{heading{2, "Results"}, para{spans: []span{t("claims.json holds no measured level.")}}}
	}
	n := len(v.targets) + 1
	rep := plural(v.repeats, "repeat", "repeats")
	out := []block{
		heading{2, "Throughput"},
		figure{Throughput},
		table{
			caption: "Successful requests per second: median [min–max] over " + rep + ".",
			header:  v.byTargetHeader(), right: allRight(n),
			rows: v.levelsRows(func(l *schemas.LevelClaims) string {
				return spread(l.Median.ReqPerS, l.Min.ReqPerS, l.Max.ReqPerS)
			}),
		},
		heading{2, "Real-time factor"},
		figure{RTFx},
		table{
			caption: "RTFx, seconds of audio transcribed per second: median [min–max] over " + rep + ".",
			header:  v.byTargetHeader(), right: allRight(n),
			rows: v.levelsRows(func(l *schemas.LevelClaims) string {
				return spread(l.Median.RTFx, l.Min.RTFx, l.Max.RTFx)
			}),
		},
		heading{2, "Latency"},
		figure{Latency},
	}
	header := []string{"concurrency"}
	for _, tg := range v.targets {
		header = append(header, tg+" p50", tg+" p90", tg+" p99")
	}
	var rows [][]string
	for _, c := range v.levels {
		row := []string{strconv.Itoa(c)}
		for _, tg := range v.targets {
			if l := v.lookup(tg, c); l != nil {
				row = append(row, num(l.Median.LatencyP50S), num(l.Median.LatencyP90S), num(l.Median.LatencyP99S))
			} else {
				row = append(row, "–", "–", "–")
			}
		}
		rows = append(rows, row)
	}
	out = append(out, table{
		caption: "Latency of successful requests in seconds (request sent to response read), median over " + rep + ".",
		header:  header, right: allRight(len(header)), rows: rows,
	})
	return out
}

func (v *view) accuracy() []block {
	unit, _ := v.unit()
	out := []block{heading{2, "Accuracy (" + unit + ")"}}
	any := false
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.WER != nil {
				any = true
			}
		}
	}
	if !any {
		return append(out, para{spans: []span{t("No references: the corpus has no reference transcripts, so " + unit + " was not computed.")}})
	}
	sc := v.in.Run.Scoring
	if v.in.Claims.Scoring != nil {
		sc = *v.in.Claims.Scoring
	}
	out = append(out, table{
		caption: unit + " of the measured requests, median [min–max] over " + plural(v.repeats, "repeat", "repeats") + ".",
		header:  v.byTargetHeader(), right: allRight(len(v.targets) + 1),
		rows: v.levelsRows(func(l *schemas.LevelClaims) string {
			if l.Median.WER == nil {
				return "–"
			}
			if l.Min.WER != nil && l.Max.WER != nil && pct(*l.Min.WER) != pct(*l.Max.WER) {
				return pctNum(*l.Median.WER) + " [" + pctNum(*l.Min.WER) + "–" + pctNum(*l.Max.WER) + "] %"
			}
			return pct(*l.Median.WER)
		}),
	})
	detail := []span{t("Scored with normalizer "), c(orDash(sc.Normalizer)), t(", aligner "), c(orDash(sc.Aligner)), t(", failed requests "), c(orDash(sc.Failures)), t(".")}
	return append(out, para{spans: detail})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (v *view) errors() []block {
	var rows [][]string
	for _, tg := range v.targets {
		for _, c := range v.levels {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			failed, requests := 0, 0
			classes := map[string]int{}
			for _, m := range l.Repeats {
				failed += m.Failed
				requests += m.Requests
				for k, n := range m.Errors {
					classes[k] += n
				}
			}
			if failed == 0 {
				continue
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
					name = "unclassified"
				}
				parts[i] = name + " " + strconv.Itoa(classes[k])
			}
			rows = append(rows, []string{tg, strconv.Itoa(c), strconv.Itoa(failed) + " of " + strconv.Itoa(requests), strings.Join(parts, ", ")})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return []block{heading{2, "Errors"}, table{
		caption: "Failed measured requests, summed over all repeats, by error class.",
		header:  []string{"target", "concurrency", "failed", "by class"},
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
	return []block{heading{2, "Server cache hits"}, table{
		caption: "Growth of the server's cache-hit counter during measurement (from its /metrics), median [min–max] over repeats. With perturbation on, any hit means the server reused work across distinct inputs.",
		header:  v.byTargetHeader(), right: allRight(len(v.targets) + 1),
		rows: v.levelsRows(func(l *schemas.LevelClaims) string {
			if l.Median.CacheHits == nil {
				return "not observable" // no cache counter in /metrics: never "0"
			}
			return spread(*l.Median.CacheHits, deref(l.Min.CacheHits), deref(l.Max.CacheHits))
		}),
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
	}
	cols := []col{
		{"GPU util mean", func(m *schemas.Metrics) *float64 { return m.GPUUtilMean }, func(x float64) string { return num(x) + " %" }},
		{"GPU util max", func(m *schemas.Metrics) *float64 { return m.GPUUtilMax }, func(x float64) string { return num(x) + " %" }},
		{"GPU memory peak", func(m *schemas.Metrics) *float64 { return m.GPUMemPeakBytes }, gib},
		{"GPU power peak", func(m *schemas.Metrics) *float64 { return m.GPUPowerPeakW }, func(x float64) string { return num(x) + " W" }},
		{"host CPU mean", func(m *schemas.Metrics) *float64 { return m.HostCPUMean }, func(x float64) string { return num(x) + " %" }},
	}
	var used []col
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
	if len(used) == 0 {
		return nil
	}
	header := []string{"target", "concurrency"}
	right := []bool{false, true}
	for _, cl := range used {
		header = append(header, cl.name)
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
				if p := cl.get(&l.Median); p != nil {
					row = append(row, cl.fmt(*p))
				} else {
					row = append(row, "–")
				}
			}
			rows = append(rows, row)
		}
	}
	return []block{heading{2, "Telemetry"}, table{
		caption: "Sampled during measurement on the client machine, median over repeats.",
		header:  header, right: right, rows: rows,
	}}
}

func (v *view) environment() []block {
	var items [][]span
	if g := v.gpuLine(); g != "" {
		items = append(items, kv("GPU", t(g)))
	}
	if h := v.in.Host; h != nil {
		var parts []string
		if h.CPUModel != "" {
			parts = append(parts, h.CPUModel)
		}
		cpus := plural(h.CPUs, "logical CPU", "logical CPUs")
		if h.CPUCores > 0 {
			cpus += " (" + plural(h.CPUCores, "core", "cores") + ")"
		}
		parts = append(parts, cpus)
		if h.MemoryBytes > 0 {
			parts = append(parts, gib(float64(h.MemoryBytes))+" memory")
		}
		os := h.OS + "/" + h.Arch
		if h.OSRelease != "" {
			os = h.OSRelease + ", " + os
		}
		if h.Kernel != "" {
			os += ", kernel " + h.Kernel
		}
		parts = append(parts, os)
		items = append(items, kv("Client host", t(strings.Join(parts, "; "))))
		if h.LoadAvg != nil {
			items = append(items, kv("Load average at start", t(num(h.LoadAvg[0])+", "+num(h.LoadAvg[1])+", "+num(h.LoadAvg[2]))))
		}
	}
	r := v.in.Run
	if !r.StartedAt.IsZero() {
		when := r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
		if !r.EndedAt.IsZero() {
			when += " to " + r.EndedAt.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		items = append(items, kv("Run", t(when+", seed "+strconv.FormatUint(r.Seed, 10))))
	}
	if len(items) == 0 {
		return nil
	}
	return []block{heading{2, "Environment"}, bullets{items}}
}

func (v *view) servers() []block {
	caps := map[string]*schemas.ServerCapture{}
	for i := range v.in.Servers {
		sc := &v.in.Servers[i]
		if caps[sc.Target] == nil {
			caps[sc.Target] = sc
		}
	}
	var out []block
	for _, tg := range v.in.Run.Targets {
		var items [][]span
		items = append(items, kv("URL", c(tg.URL)))
		if tg.Model != "" {
			items = append(items, kv("Model", c(tg.Model)))
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
			items = append(items, kv("Request fields", c(strings.Join(pairs, " "))))
		}
		if tg.LaunchCommand != "" {
			items = append(items, kv("Launched with", c(clipText(tg.LaunchCommand, 400))))
		}
		if len(tg.GPUs) > 0 {
			items = append(items, kv("GPUs", t(joinInts(tg.GPUs))))
		}
		if sc := caps[tg.Name]; sc != nil {
			for _, p := range sc.Probes {
				if p.Status == 0 {
					continue
				}
				line := kv("GET "+p.Path, t(strconv.Itoa(p.Status)))
				if body := clipText(p.Body, 160); body != "" {
					line = append(line, t(" "), c(body))
				}
				items = append(items, line)
			}
		}
		out = append(out, heading{3, tg.Name}, bullets{items})
	}
	if len(out) == 0 {
		return nil
	}
	return append([]block{heading{2, "Targets"}}, out...)
}

func (v *view) howToCheck() []block {
	in := v.in
	out := []block{heading{2, "How to check these numbers"}}
	name := in.BundleName
	if name == "" {
		name = "evidence.tar.zst"
	}
	key := "KEY.pub"
	if in.KeyEphemeral {
		key = "benchseal.pub"
	}
	if in.BundleSHA256 != "" {
		out = append(out, para{spans: []span{
			t("Every number above is recomputed by benchseal from the raw per-request records sealed in the evidence bundle "),
			c(name), t(", SHA-256 "), c(in.BundleSHA256), t("."),
		}})
	} else {
		out = append(out, para{warn: true, spans: []span{
			b("This report was made from a run directory, not a sealed bundle."),
			t(" Seal it before publishing ("), c("benchseal seal RUNDIR -o evidence.tar.zst --key KEY"),
			t(") and publish the bundle, its SHA-256 and the public key."),
		}})
	}
	if in.KeyFingerprint != "" {
		s := []span{t("It is signed by the key with fingerprint "), c(in.KeyFingerprint), t(" (SHA-256 of its PKIX DER encoding).")}
		if in.KeyEphemeral {
			s = append(s, t(" "), b("The key was ephemeral:"), t(" its public half ships in the bundle as benchseal.pub, which proves the bundle intact but not who sealed it."))
		}
		out = append(out, para{spans: s, warn: in.KeyEphemeral})
	}
	verify, extract := "benchseal verify "+name+" --key "+key, " attestation.dsse.json claims.json"
	if in.KeyEphemeral {
		// The key ships inside: verify uses it (and says the signer is
		// unpinned), cosign needs it extracted.
		verify, extract = "benchseal verify "+name, " attestation.dsse.json benchseal.pub claims.json"
	}
	out = append(out,
		para{spans: []span{t("Check the whole bundle (signature, every file's digest, schemas, every perturbation, claims recomputed from the records, protocol, fairness):")}},
		codeBlock{"sha256sum " + name + "\n" + verify},
		para{spans: []span{t("Or check any single file with stock cosign, for example the claims:")}},
		codeBlock{"tar --zstd -xf " + name + extract + "\n" +
			"cosign verify-blob-attestation --key " + key + " --signature attestation.dsse.json \\\n" +
			"    --type " + schemas.PredicateType + " --insecure-ignore-tlog claims.json"},
	)
	if len(in.Verification) > 0 {
		out = append(out, para{spans: []span{t("benchseal verify said:")}}, codeBlock{strings.Join(in.Verification, "\n")})
	}
	tool := in.Run.Tool
	s := []span{t("Measured by "), c(orDash(tool.Name) + " " + orDash(tool.Version))}
	if tool.GoVersion != "" {
		s = append(s, t(" built with "+tool.GoVersion))
	}
	if tool.BinarySHA256 != "" {
		s = append(s, t(", binary SHA-256 "), c(tool.BinarySHA256))
	} else {
		s = append(s, t(", binary SHA-256 not recorded"))
	}
	s = append(s, t("."))
	out = append(out, para{spans: s})
	return out
}
