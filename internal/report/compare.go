package report

// Compare: two sealed runs of the same protocol side by side (benchseal
// compare A B), with the conclusion's verdict rule (internal/verdict: the
// ratio of median throughputs with its seeded bootstrap interval and the
// overlap-aware words, as the report words them) and replay's per-figure
// comparison (internal/claims.Compare: each metric's change against a
// tolerance).

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// Pair names a target of A and the target of B it is compared with.
type Pair struct{ A, B string }

// CompareSide is one bundle of a comparison: its documents (Input, with
// the records for the interval over requests) and its identity.
type CompareSide struct {
	In             Input
	Path           string
	BundleSHA256   string
	KeyFingerprint string
	KeyPinned      bool
}

// ProtocolError says two runs did not follow the same protocol, naming
// every difference ("protocol.levels: A [1 3], B [1 2]").
type ProtocolError struct{ Differences []string }

func (e *ProtocolError) Error() string {
	return "the protocols differ: " + strings.Join(e.Differences, "; ")
}

// TaskError says two runs are of different tasks (run.json's
// protocol.task, absent being ASR's): their figures are not of the same
// requests, and their quality figures not of the same metric.
type TaskError struct{ A, B string }

func (e *TaskError) Error() string {
	return fmt.Sprintf("A is a run of task %q, B of task %q", e.A, e.B)
}

// PairError is a pairing of targets that cannot be made: a name that
// neither side has, a target paired twice, or no target in common.
type PairError struct{ Reason string }

func (e *PairError) Error() string { return e.Reason }

// ProtocolDiff lists what differs between two runs' protocols: every field
// of run.json's protocol, the corpus (its clips' SHA-256 in run order, as a
// digest) and the scoring; empty when they are the same.
func ProtocolDiff(a, b *schemas.Run) []string {
	var out []string
	pa, pb := a.Protocol, b.Protocol
	pa.Task, pb.Task = task.NameOf(a), task.NameOf(b) // absent is ASR's, as recorded since
	// The latency percentiles claims publish (run --percentiles) are not
	// what was measured: those both sides have are compared, the others
	// left out.
	pa.Percentiles, pb.Percentiles = nil, nil
	va, vb := reflect.ValueOf(pa), reflect.ValueOf(pb)
	for i := range va.NumField() {
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if reflect.DeepEqual(x, y) {
			continue
		}
		name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
		out = append(out, fmt.Sprintf("protocol.%s: A %s, B %s", name, jsonText(x), jsonText(y)))
	}
	if da, db := corpusDigest(a), corpusDigest(b); da != db {
		out = append(out, fmt.Sprintf("corpus: A %d clips (digest %s), B %d clips (digest %s)", len(a.Corpus), da[:12], len(b.Corpus), db[:12]))
	}
	if a.Scoring != b.Scoring {
		out = append(out, fmt.Sprintf("scoring: A %s, B %s", jsonText(a.Scoring), jsonText(b.Scoring)))
	}
	return out
}

// RequestDiff lists what differs between the requests target a of A and
// target b of B sent beyond the protocol: the model and every form field
// (language, response_format, prompt, ...; a field one side did not send
// is named as such). Empty when they sent the same. A server told the
// language skips detecting it, and one asked for another format answers
// other bytes: their figures are not those of the same requests.
func RequestDiff(a, b schemas.Target) []string {
	var out []string
	if a.Model != b.Model {
		out = append(out, fmt.Sprintf("model: A %s, B %s", fieldText(a.Model, a.Model != ""), fieldText(b.Model, b.Model != "")))
	}
	keys := slices.Sorted(maps.Keys(a.RequestFields))
	for k := range b.RequestFields {
		if _, ok := a.RequestFields[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		x, okA := a.RequestFields[k]
		y, okB := b.RequestFields[k]
		if okA == okB && x == y {
			continue
		}
		out = append(out, fmt.Sprintf("%s: A %s, B %s", k, fieldText(x, okA), fieldText(y, okB)))
	}
	return out
}

// fieldText quotes a sent value, or says it was not sent.
func fieldText(v string, sent bool) string {
	if !sent {
		return "not sent"
	}
	return strconv.Quote(v)
}

// requestText words what a target sent beyond the protocol: its model and
// form fields, sorted.
func requestText(t schemas.Target) string {
	var parts []string
	if t.Model != "" {
		parts = append(parts, "model "+t.Model)
	}
	for _, k := range slices.Sorted(maps.Keys(t.RequestFields)) {
		parts = append(parts, k+"="+t.RequestFields[k])
	}
	if len(parts) == 0 {
		return "no model, no form field"
	}
	return strings.Join(parts, ", ")
}

// targetOf is run's target named name (zero when it has none).
func targetOf(r *schemas.Run, name string) schemas.Target {
	for _, t := range r.Targets {
		if t.Name == name {
			return t
		}
	}
	return schemas.Target{Name: name}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// corpusDigest is the SHA-256 of the clips' SHA-256 and reference texts in
// run order: what was sent and what it was scored against; a tts item's
// text to speak and voice too (an item without a reference clip has no
// SHA-256: they are all it sends).
func corpusDigest(r *schemas.Run) string {
	h := sha256.New()
	for _, c := range r.Corpus {
		fmt.Fprintf(h, "%s %q\n", c.SHA256, c.Text)
		if c.Speak != "" || c.Voice != "" {
			fmt.Fprintf(h, "speak %q voice %q language %q\n", c.Speak, c.Voice, c.Language)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Comparison is two bundles side by side, as compare prints it (--format
// json gives it as is).
type Comparison struct {
	A         CompareBundle              `json:"a"`
	B         CompareBundle              `json:"b"`
	Protocol  schemas.Protocol           `json:"protocol"`
	Tolerance claims.ComparisonTolerance `json:"tolerance"`
	Pairs     []ComparedPair             `json:"pairs"`
	// OnlyA and OnlyB are the targets left out of every pair.
	OnlyA []string `json:"only_a,omitempty"`
	OnlyB []string `json:"only_b,omitempty"`
	// Differ counts the figures beyond the tolerance over all pairs.
	Differ int `json:"differ"`
	// metric names the runs' task's quality figure (view.metric).
	metric string
	// RequestsDiffer counts the pairs whose requests differ
	// (ComparedPair.RequestDifferences).
	RequestsDiffer int `json:"requests_differ"`
	// Simulated names the targets of either side that answered as
	// benchseal's simulator ("A:vllm (the vllm persona)"): their figures
	// measure the simulator, not an engine.
	Simulated []string `json:"simulated,omitempty"`
}

// CompareBundle identifies one side.
type CompareBundle struct {
	Path           string    `json:"path"`
	BundleSHA256   string    `json:"bundle_sha256"`
	KeyFingerprint string    `json:"key_fingerprint"`
	KeyPinned      bool      `json:"key_pinned"`
	StartedAt      time.Time `json:"started_at"`
}

// ComparedPair is one target of A against one of B.
type ComparedPair struct {
	A string `json:"a"`
	B string `json:"b"`
	// Summary groups the levels by verdict, as the report's conclusion
	// does ("at C = 1, 3: no difference shown (repeats overlap)").
	Summary string `json:"summary"`
	// Requests is what A's target sent beyond the protocol (its model and
	// form fields); RequestDifferences names every way B's differs
	// (RequestDiff), empty when both sent the same requests.
	Requests           string          `json:"requests"`
	RequestDifferences []string        `json:"request_differences"`
	Levels             []ComparedLevel `json:"levels"`
	// Figures is claims.Compare of B's claims against A's (sealed: A,
	// replayed: B), named by A's target.
	Figures []claims.Difference `json:"figures"`
	Differ  int                 `json:"differ"`
}

// ComparedLevel is the throughput verdict at one level both sides have.
type ComparedLevel struct {
	Concurrency int       `json:"concurrency"`
	A           LevelSide `json:"a"`
	B           LevelSide `json:"b"`
	// Ratio is median(A)/median(B) of successful requests per second;
	// IntervalLo/Hi its 95 % bootstrap interval (null: none), resting on
	// Basis ("requests_and_repeats", "repeats", "range_over_repeats" or
	// "").
	Ratio      *float64 `json:"ratio"`
	IntervalLo *float64 `json:"interval_lo"`
	IntervalHi *float64 `json:"interval_hi"`
	Basis      string   `json:"interval_basis"`
	// Verdict is "ahead", "within_noise" (apart, but by no more than the
	// tolerance), "no_difference", "single_repeat", "not_steady" (a
	// repeat never reached steady state) or "not_comparable";
	// Leader "A" or "B" when ahead; Words the verdict as
	// the report words it.
	Verdict string `json:"verdict"`
	Leader  string `json:"leader,omitempty"`
	Words   string `json:"words"`
}

// LevelSide is one side's figures at a level: medians (min and max over
// repeats of req/s).
type LevelSide struct {
	Repeats     int      `json:"repeats"`
	ReqPerS     float64  `json:"req_per_s"`
	ReqPerSMin  float64  `json:"req_per_s_min"`
	ReqPerSMax  float64  `json:"req_per_s_max"`
	LatencyP50S *float64 `json:"latency_p50_s"`
	Requests    int      `json:"requests"`
	Failed      int      `json:"failed"`
}

// Compare sets b against a: both must follow the same protocol
// (*ProtocolError otherwise). Targets are matched by name, or by pairs
// when given (*PairError for a name a side lacks or one used twice).
func Compare(a, b CompareSide, pairs []Pair, tol claims.Tolerance) (*Comparison, error) {
	if ta, tb := task.NameOf(&a.In.Run), task.NameOf(&b.In.Run); ta != tb {
		return nil, &TaskError{A: ta, B: tb}
	}
	if d := ProtocolDiff(&a.In.Run, &b.In.Run); len(d) > 0 {
		return nil, &ProtocolError{Differences: d}
	}
	va, vb := newView(a.In), newView(b.In)
	if pairs == nil {
		for _, t := range va.targets {
			if vb.at[t] != nil {
				pairs = append(pairs, Pair{t, t})
			}
		}
		if len(pairs) == 0 {
			return nil, &PairError{Reason: fmt.Sprintf("no target of A (%s) has the name of one of B (%s)", strings.Join(va.targets, ", "), strings.Join(vb.targets, ", "))}
		}
	}
	usedA, usedB := map[string]bool{}, map[string]bool{}
	for _, p := range pairs {
		switch {
		case va.at[p.A] == nil:
			return nil, &PairError{Reason: fmt.Sprintf("A has no target %q (it has %s)", p.A, strings.Join(va.targets, ", "))}
		case vb.at[p.B] == nil:
			return nil, &PairError{Reason: fmt.Sprintf("B has no target %q (it has %s)", p.B, strings.Join(vb.targets, ", "))}
		case usedA[p.A]:
			return nil, &PairError{Reason: fmt.Sprintf("A's target %q is paired twice", p.A)}
		case usedB[p.B]:
			return nil, &PairError{Reason: fmt.Sprintf("B's target %q is paired twice", p.B)}
		}
		usedA[p.A], usedB[p.B] = true, true
	}
	c := &Comparison{A: bundleOf(a), B: bundleOf(b), Protocol: a.In.Run.Protocol, metric: va.metric(),
		Tolerance: claims.ComparisonTolerance{Relative: tol.Relative, QualityPoints: tol.QualityPoints}, Pairs: []ComparedPair{}}
	for _, sv := range []struct {
		label string
		v     *view
	}{{"A:", va}, {"B:", vb}} {
		for _, x := range sv.v.simulated() {
			c.Simulated = append(c.Simulated, sv.label+x)
		}
	}
	for _, t := range va.targets {
		if !usedA[t] {
			c.OnlyA = append(c.OnlyA, t)
		}
	}
	for _, t := range vb.targets {
		if !usedB[t] {
			c.OnlyB = append(c.OnlyB, t)
		}
	}
	for _, p := range pairs {
		cp := comparePair(va, vb, p, tol)
		ta, tb := targetOf(&a.In.Run, p.A), targetOf(&b.In.Run, p.B)
		cp.Requests, cp.RequestDifferences = requestText(ta), RequestDiff(ta, tb)
		if cp.RequestDifferences == nil {
			cp.RequestDifferences = []string{}
		} else {
			c.RequestsDiffer++
		}
		c.Differ += cp.Differ
		c.Pairs = append(c.Pairs, cp)
	}
	return c, nil
}

func bundleOf(s CompareSide) CompareBundle {
	return CompareBundle{Path: s.Path, BundleSHA256: s.BundleSHA256, KeyFingerprint: s.KeyFingerprint, KeyPinned: s.KeyPinned, StartedAt: s.In.Run.StartedAt}
}

// Labels of the two sides in verdict words: "A:vllm", "B:vllm".
func pairLabels(p Pair) (string, string) { return "A:" + p.A, "B:" + p.B }

func comparePair(va, vb *view, p Pair, tol claims.Tolerance) ComparedPair {
	la, lb := pairLabels(p)
	cp := ComparedPair{A: p.A, B: p.B, Levels: []ComparedLevel{}}
	var lv []levelVerdict
	for _, c := range va.levels {
		a, b := va.lookup(p.A, c), vb.lookup(p.B, c)
		if a == nil || b == nil {
			continue
		}
		r := verdict.Compare(va.side(p.A, a), vb.side(p.B, b), verdict.Options{MinEffect: compareEffect(tol)})
		lv = append(lv, levelVerdict{c, r})
		cl := ComparedLevel{Concurrency: c, A: levelSide(a), B: levelSide(b), Ratio: finite(r.Ratio),
			IntervalLo: finite(r.Lo), IntervalHi: finite(r.Hi), Basis: basisName(r.Basis), Words: va.words(r, la, lb)}
		cl.Verdict = [...]string{verdict.NotComparable: "not_comparable", verdict.NotSteady: "not_steady", verdict.SingleRepeat: "single_repeat",
			verdict.NoDifference: "no_difference", verdict.WithinNoise: "within_noise", verdict.Ahead: "ahead"}[r.Kind]
		if r.Kind == verdict.Ahead {
			cl.Leader = [...]string{"A", "B"}[r.Leader]
		}
		cp.Levels = append(cp.Levels, cl)
	}
	if len(lv) > 0 {
		cp.Summary = va.groups(lv, la, lb)
	}
	// The figures, named by A's target on both sides.
	ca := claims.ForTargets(va.in.Claims, func(t string) bool { return t == p.A })
	cb := claims.ForTargets(vb.in.Claims, func(t string) bool { return t == p.B })
	cb.Targets = slices.Clone(cb.Targets)
	for i := range cb.Targets {
		cb.Targets[i].Target = p.A
	}
	cp.Figures = claims.Compare(ca, cb, tol)
	cp.Differ = claims.Differing(cp.Figures)
	return cp
}

// compareEffect is compare's minimum effect: its tolerance on throughput,
// so that a lead its conclusion names is a req_per_s figure its table
// calls beyond the tolerance (internal/verdict's doc).
func compareEffect(tol claims.Tolerance) float64 {
	if tol.Relative <= 0 {
		return -1 // no tolerance: any lead beyond the interval
	}
	return tol.Relative
}

func levelSide(l *schemas.LevelClaims) LevelSide {
	s := LevelSide{Repeats: len(l.Repeats), ReqPerS: l.Median.ReqPerS, ReqPerSMin: l.Min.ReqPerS, ReqPerSMax: l.Max.ReqPerS, LatencyP50S: l.Median.LatencyP50S}
	s.Requests, _, s.Failed = tally(l)
	return s
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func basisName(b verdict.Basis) string {
	switch b {
	case verdict.RequestsAndRepeats:
		return "requests_and_repeats"
	case verdict.RepeatsOnly:
		return "repeats"
	case verdict.RangeOverRepeats:
		return "range_over_repeats"
	}
	return ""
}

// WriteJSON writes c indented.
func (c *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// Markdown writes c as GitHub-flavoured Markdown.
func (c *Comparison) Markdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, bl := range c.blocks() {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeMarkdown(bw, bl, false)
	}
	return bw.Flush()
}

// HTML writes c as one self-contained page.
func (c *Comparison) HTML(w io.Writer) error {
	return writeHTML(w, newView(Input{}), c.blocks())
}

func (cm *Comparison) blocks() []block {
	side := func(name string, s CompareBundle) []span {
		pinned := "pinned"
		if !s.KeyPinned {
			pinned = "unpinned: the key the bundle carries"
		}
		return []span{b(name + ":"), t(" "), c(s.Path), t(", sha256 "), c(s.BundleSHA256), t(", signed by "), c(s.KeyFingerprint),
			t(" (" + pinned + "), run started " + s.StartedAt.UTC().Format(time.RFC3339))}
	}
	p := cm.Protocol
	// The protocol is the same or compare refused; the requests (model and
	// form fields) may still differ between paired targets.
	same := "Protocol (the same on both sides, and so are the requests of every pair):"
	if cm.RequestsDiffer > 0 {
		same = fmt.Sprintf("Protocol (the same on both sides, but the requests of %d of %d pairs differ, below):", cm.RequestsDiffer, len(cm.Pairs))
	}
	out := []block{
		heading{1, "benchseal compare: A vs B"},
		bullets{items: [][]span{side("A", cm.A), side("B", cm.B),
			{b(same), t(fmt.Sprintf(" levels %s; requests per level %s; %d repeats; perturbation %t; streaming %t",
				joinInts(p.Levels), perLevel(p.Requests), p.Repeats, p.Perturb, p.Stream))}}},
	}
	if len(cm.Simulated) > 0 {
		out = append(out, para{warn: true, spans: []span{b("Simulated servers:"), t(" " + strings.Join(cm.Simulated, ", ") +
			" answered as benchseal's simulator (benchseal sim: its /v1/models names the persona it imitates): the figures measure the simulator, not an engine.")}})
	}
	if len(cm.OnlyA) > 0 || len(cm.OnlyB) > 0 {
		var s []string
		if len(cm.OnlyA) > 0 {
			s = append(s, "only in A: "+strings.Join(cm.OnlyA, ", "))
		}
		if len(cm.OnlyB) > 0 {
			s = append(s, "only in B: "+strings.Join(cm.OnlyB, ", "))
		}
		out = append(out, para{warn: true, spans: []span{b("Not compared:"), t(" " + strings.Join(s, "; ") + " (pair them with --pair A:x=B:y).")}})
	}
	for _, cp := range cm.Pairs {
		la, lb := pairLabels(Pair{cp.A, cp.B})
		out = append(out, heading{2, la + " vs " + lb})
		if len(cp.RequestDifferences) > 0 {
			out = append(out, para{warn: true, spans: []span{b("The requests differ:"), t(" " + strings.Join(cp.RequestDifferences, "; ") +
				": the figures compare different requests, not the servers alone.")}})
		} else {
			out = append(out, para{spans: []span{b("Requests (the same on both sides):"), t(" " + cp.Requests + ".")}})
		}
		if cp.Summary != "" {
			out = append(out, para{spans: []span{b("Throughput:"), t(" " + cp.Summary + ".")}})
		}
		var rows [][]string
		basis, lo, hi := verdict.IntervalNone, 0, 0
		for _, l := range cp.Levels {
			switch l.Basis {
			case "requests_and_repeats":
				basis = verdict.RequestsAndRepeats
			case "repeats":
				basis = max(basis, verdict.RepeatsOnly)
			case "range_over_repeats":
				basis = max(basis, verdict.RangeOverRepeats)
			}
			for _, n := range []int{l.A.Repeats, l.B.Repeats} {
				if lo == 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
			iv := "—"
			if l.IntervalLo != nil {
				iv = ratioText(*l.IntervalLo) + "–" + ratioText(*l.IntervalHi)
			}
			ratio := "—"
			if l.Ratio != nil {
				ratio = ratioText(*l.Ratio)
			}
			rows = append(rows, []string{strconv.Itoa(l.Concurrency), spread(l.A.ReqPerS, l.A.ReqPerSMin, l.A.ReqPerSMax),
				spread(l.B.ReqPerS, l.B.ReqPerSMin, l.B.ReqPerSMax), ratio, iv, l.Words})
		}
		if len(rows) > 0 {
			// The interval named by what it rests on, as the report's
			// conclusion names it (one repeat a side is no 95 % interval).
			ih := strings.ReplaceAll(newView(Input{}).intervalHeader(basis, lo, hi), "this run's", "the two runs'")
			out = append(out, table{header: []string{"concurrency", la + " req/s", lb + " req/s", la + " / " + lb, ih, "verdict"},
				right: []bool{true, true, true, true, true, false}, rows: rows})
		}
		out = append(out, cm.figures(cp)...)
	}
	out = append(out, para{spans: []span{t("Throughput: ratio of the medians over repeats of successful requests per second, A over B, " +
		"with a seeded bootstrap interval over requests within repeats and over repeats (over repeats only where a side's records could not be read: the range over repeats below 5 repeats a side); every interval covers these runs' repeats, not the drift between runs, which the tolerance stands for. " +
		"Verdict by the report's rule: a target that failed more than 1 % of its requests, whose server counted cache hits although every request was distinct, or that answered from its cache in a run without perturbation, is not comparable; a level whose repeat never reached steady state (mean in flight below 0.9·C, or all C busy for less than 80 % of the window) claims no lead; overlapping repeats show no difference; one repeat claims no lead; " +
		fmt.Sprintf("a lead of at most the tolerance (%s %%) is within noise, so a lead named here is a req_per_s figure beyond the tolerance below. ", strconv.FormatFloat(cm.Tolerance.Relative*100, 'g', 6, 64)) +
		fmt.Sprintf("Figures: B's medians against A's; beyond the tolerance (%s %% on throughput, latency and counts, as a ratio both ways; %g points of %s) is DIFF, "+
			"but a latency percentile of fewer successful requests per repeat than bound it at 95 %% (p99: %d, p50: %d) is UNSTABLE, within the tolerance or beyond: shown, counted neither way.",
			strconv.FormatFloat(cm.Tolerance.Relative*100, 'g', 6, 64), cm.Tolerance.QualityPoints, cm.qualityName(), claims.StableRequests(0.99), claims.StableRequests(0.5)))}})
	return out
}

// figures is the per-metric table of a pair, DIFF rows named first.
func (cm *Comparison) figures(cp ComparedPair) []block {
	la, lb := pairLabels(Pair{cp.A, cp.B})
	var rows [][]string
	var moved, unstable []string
	for _, d := range cp.Figures {
		change := "—"
		if d.Change != nil {
			switch d.ChangeUnit {
			case claims.ChangePoints:
				change = strconv.FormatFloat(*d.Change, 'f', 2, 64) + " points"
			default:
				change = strconv.FormatFloat(*d.Change*100, 'f', 1, 64) + " %"
			}
			if *d.Change > 0 {
				change = "+" + change
			}
		}
		metric := d.Metric
		if metric == "" {
			metric, change = "—", d.Reason
		}
		rows = append(rows, []string{strconv.Itoa(d.Concurrency), metric, figure2(d.Metric, d.Sealed), figure2(d.Metric, d.Replayed), change, string(d.Verdict)})
		switch d.Verdict {
		case claims.Diff:
			moved = append(moved, fmt.Sprintf("%s at C = %d (%s)", metric, d.Concurrency, change))
		case claims.Unstable:
			unstable = append(unstable, fmt.Sprintf("%s at C = %d (%s)", metric, d.Concurrency, d.Reason))
		}
	}
	head := []span{b("Figures:"), t(" every one within the tolerance.")}
	if len(moved) > 0 {
		head = []span{b(fmt.Sprintf("Figures beyond the tolerance (%d of %d):", len(moved), len(cp.Figures))), t(" " + strings.Join(moved, "; ") + ".")}
	} else if len(unstable) > 0 {
		head = []span{b("Figures:"), t(" every one judged is within the tolerance.")}
	}
	if len(unstable) > 0 {
		head = append(head, t(fmt.Sprintf(" UNSTABLE, percentiles of too few requests to judge either way, shown and not counted (%d): %s.", len(unstable), strings.Join(unstable, "; "))))
	}
	return []block{para{spans: head}, table{header: []string{"concurrency", "metric", la, lb, "change", "verdict"},
		right: []bool{true, false, true, true, true, false}, rows: rows}}
}

// qualityName is the compared runs' quality figure's name ("WER"), or
// "quality" for a comparison not made by Compare.
func (cm *Comparison) qualityName() string {
	if cm.metric == "" {
		return "quality"
	}
	return cm.metric
}

// figure2 words a compared figure: wer as a percentage, counts whole.
func figure2(metric string, p *float64) string {
	switch {
	case p == nil:
		return "—"
	case metric == "wer":
		return pct(*p)
	case metric == "succeeded" || metric == "failed":
		return count(*p)
	}
	return num(*p)
}
