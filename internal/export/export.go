package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Kind is a column's value type.
type Kind int

// The kinds of a column's values.
const (
	Int    Kind = iota // int64
	Float              // float64
	String             // string
	Bool               // bool
)

func (k Kind) String() string {
	return [...]string{"int", "float", "string", "bool"}[k]
}

// Column is one column of a table.
type Column struct {
	Name string
	Kind Kind
	// Null says the column may hold nulls (nil values).
	Null bool
	// Doc says what the column holds, in docs/export.md's words.
	Doc string
}

// Table is a flat table: its name ("requests" or "claims", the file's
// base name), its columns and its rows, each with one value per column
// (int64, float64, string, bool, or nil for a null).
type Table struct {
	Name    string
	Columns []Column
	Rows    [][]any
}

type reqColumn struct {
	Column
	get func(r *schemas.Record, lv level) any
}

// level is what a record's level says beyond its number.
type level struct {
	rate *float64 // an open loop's offered rate
}

func f64(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func i64p(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

var requestColumns = []reqColumn{
	{Column{"task", String, false, "the run's task (run.json protocol.task; `asr` when absent)"}, nil},
	{Column{"target", String, false, "the target's name"}, func(r *schemas.Record, _ level) any { return r.Target }},
	{Column{"concurrency", Int, false, "the level: its concurrency (closed loop) or its number 1..n (open loop)"}, func(r *schemas.Record, _ level) any { return int64(r.Concurrency) }},
	{Column{"offered_rate_per_s", Float, true, "an open loop's offered rate at the level (run.json request_rates); null in a closed loop"}, func(_ *schemas.Record, lv level) any { return f64(lv.rate) }},
	{Column{"repeat", Int, false, "the repeat, 1-based"}, func(r *schemas.Record, _ level) any { return int64(r.Repeat) }},
	{Column{"phase", String, false, "`warmup`, `measure` or `probe` (the cache probe's requests); claims count `measure` only"}, func(r *schemas.Record, _ level) any { return r.Phase }},
	{Column{"seq", Int, false, "the request's index within its level and repeat, warm-ups first"}, func(r *schemas.Record, _ level) any { return int64(r.Seq) }},
	{Column{"worker", Int, false, "the worker that sent it"}, func(r *schemas.Record, _ level) any { return int64(r.Worker) }},
	{Column{"clip", String, false, "the corpus item's id"}, func(r *schemas.Record, _ level) any { return r.Clip }},
	{Column{"variant", Int, false, "the clip's variant (0-based); -1 with --no-perturb"}, func(r *schemas.Record, _ level) any { return r.Variant }},
	{Column{"sample_index", Int, false, "the PCM sample the variant changed; -1 with --no-perturb"}, func(r *schemas.Record, _ level) any { return r.SampleIndex }},
	{Column{"input_sha256", String, false, "SHA-256 of the bytes sent"}, func(r *schemas.Record, _ level) any { return r.InputSHA256 }},
	{Column{"audio_seconds", Float, false, "the seconds RTFx counts (ASR: the clip's; TTS: the produced audio's)"}, func(r *schemas.Record, _ level) any { return r.Seconds }},
	{Column{"start_ns", Int, false, "when the request was sent, ns from run.json started_at (monotonic)"}, func(r *schemas.Record, _ level) any { return r.StartNs }},
	{Column{"first_byte_ns", Int, false, "when its first byte (streamed: first output) came; 0 if none"}, func(r *schemas.Record, _ level) any { return r.FirstByteNs }},
	{Column{"end_ns", Int, false, "when its answer ended"}, func(r *schemas.Record, _ level) any { return r.EndNs }},
	{Column{"planned_ns", Int, true, "an open loop's planned send time; null in a closed loop"}, func(r *schemas.Record, _ level) any {
		if r.PlannedNs == 0 {
			return nil
		}
		return r.PlannedNs
	}},
	{Column{"latency_s", Float, false, "(end_ns − start_ns) / 1e9, as claims count a latency"}, func(r *schemas.Record, _ level) any { return seconds(r.EndNs - r.StartNs) }},
	{Column{"ttfb_s", Float, true, "(first_byte_ns − start_ns) / 1e9; null when no byte came"}, func(r *schemas.Record, _ level) any {
		if r.FirstByteNs <= 0 {
			return nil
		}
		return seconds(r.FirstByteNs - r.StartNs)
	}},
	{Column{"status", Int, false, "the HTTP status; 0 if none"}, func(r *schemas.Record, _ level) any { return int64(r.Status) }},
	{Column{"ok", Bool, false, "the task's success rule held"}, func(r *schemas.Record, _ level) any { return r.OK }},
	{Column{"error_class", String, false, "why it failed (`http`, `shed`, `timeout`, `connect`, `reset`, `empty_text`, …); empty when ok"}, func(r *schemas.Record, _ level) any { return r.ErrorClass }},
	{Column{"error", String, false, "the failure's message"}, func(r *schemas.Record, _ level) any { return r.Error }},
	{Column{"text", String, false, "the task's output as decoded (ASR: the transcript; TTS: the produced audio's facts, JSON)"}, func(r *schemas.Record, _ level) any { return r.Text }},
	{Column{"text_scored", String, false, "the output as the success rule and scoring saw it"}, func(r *schemas.Record, _ level) any { return r.Scored }},
	{Column{"request_id", String, false, "the X-Request-Id benchseal sent"}, func(r *schemas.Record, _ level) any { return r.RequestID }},
	{Column{"server_request_id", String, false, "the id the server gave the request, when it said one"}, func(r *schemas.Record, _ level) any { return r.ServerRequestID }},
}

// RequestColumns are the columns of the requests table, in order.
func RequestColumns() []Column {
	out := make([]Column, len(requestColumns))
	for i, c := range requestColumns {
		out[i] = c.Column
	}
	return out
}

// TaskName is run.json's task, "asr" when absent (runs made before it was
// recorded were ASR's).
func TaskName(run schemas.Run) string {
	if run.Protocol.Task == "" {
		return "asr"
	}
	return run.Protocol.Task
}

// Requests is the requests table: one row per record, in the order given.
func Requests(run schemas.Run, recs []schemas.Record) Table {
	t := Table{Name: "requests", Columns: RequestColumns(), Rows: make([][]any, 0, len(recs))}
	name := TaskName(run)
	open := run.Protocol.Mode == schemas.ModeOpen
	for i := range recs {
		r := &recs[i]
		var lv level
		if open && r.Concurrency >= 1 && r.Concurrency <= len(run.Protocol.RequestRates) {
			lv.rate = &run.Protocol.RequestRates[r.Concurrency-1]
		}
		row := make([]any, len(requestColumns))
		for j, c := range requestColumns {
			if c.get == nil {
				row[j] = name
				continue
			}
			row[j] = c.get(r, lv)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

type claimColumn struct {
	Column
	get func(m *schemas.Metrics) any
}

var claimColumns = slices.Concat(coreColumns, taskFigureColumns(), telemetryColumns)

// coreColumns are the figures every task has.
var coreColumns = []claimColumn{
	{Column{"requests", Int, false, "measured requests"}, func(m *schemas.Metrics) any { return int64(m.Requests) }},
	{Column{"succeeded", Int, false, "measured requests that succeeded"}, func(m *schemas.Metrics) any { return int64(m.Succeeded) }},
	{Column{"failed", Int, false, "measured requests that failed"}, func(m *schemas.Metrics) any { return int64(m.Failed) }},
	{Column{"window_s", Float, false, "last end − first start of the measured requests, seconds"}, func(m *schemas.Metrics) any { return m.WindowS }},
	{Column{"req_per_s", Float, false, "succeeded / window_s"}, func(m *schemas.Metrics) any { return m.ReqPerS }},
	{Column{"rtfx", Float, true, "seconds of the successes / window_s"}, func(m *schemas.Metrics) any { return f64(m.RTFx) }},
	{Column{"latency_mean_s", Float, true, "mean latency of the successes"}, func(m *schemas.Metrics) any { return f64(m.LatencyMeanS) }},
	{Column{"latency_p50_s", Float, true, "latency percentiles of the successes (numpy's linear interpolation)"}, func(m *schemas.Metrics) any { return f64(m.LatencyP50S) }},
	{Column{"latency_p90_s", Float, true, ""}, func(m *schemas.Metrics) any { return f64(m.LatencyP90S) }},
	{Column{"latency_p95_s", Float, true, ""}, func(m *schemas.Metrics) any { return f64(m.LatencyP95S) }},
	{Column{"latency_p99_s", Float, true, ""}, func(m *schemas.Metrics) any { return f64(m.LatencyP99S) }},
	{Column{"latency_max_s", Float, true, "slowest success"}, func(m *schemas.Metrics) any { return f64(m.LatencyMaxS) }},
	{Column{"ttfb_p50_s", Float, true, "median time to first byte"}, func(m *schemas.Metrics) any { return f64(m.TTFBP50S) }},
	{Column{"wer", Float, true, "the task's quality figure (ASR: WER, or CER when wer_unit is `char`), a fraction (0.05 is 5 %); null without references"}, func(m *schemas.Metrics) any { return f64(m.Quality) }},
	{Column{"peak_in_flight", Int, false, "most measured requests in flight at once"}, func(m *schemas.Metrics) any { return int64(m.PeakInFlight) }},
	{Column{"mean_in_flight", Float, true, "Σ latency / window_s (Little's law)"}, func(m *schemas.Metrics) any { return f64(m.MeanInFlight) }},
	{Column{"full_concurrency_share", Float, true, "share of the window with all C in flight"}, func(m *schemas.Metrics) any { return f64(m.FullConcurrencyShare) }},
	{Column{"warmup_peak_in_flight", Int, true, "most warm-ups in flight at once"}, func(m *schemas.Metrics) any { return i64p(m.WarmupPeakInFlight) }},
	{Column{"send_rate_per_s", Float, true, "open loop: the rate the measured requests were sent at"}, func(m *schemas.Metrics) any { return f64(m.SendRate) }},
	{Column{"lateness_p50_s", Float, true, "open loop: send lateness (start − planned) p50"}, func(m *schemas.Metrics) any { return f64(m.LatenessP50S) }},
	{Column{"lateness_p99_s", Float, true, "open loop: send lateness p99"}, func(m *schemas.Metrics) any { return f64(m.LatenessP99S) }},
	{Column{"arrival_latency_p50_s", Float, true, "open loop: latency from the planned arrival p50"}, func(m *schemas.Metrics) any { return f64(m.ArrivalLatencyP50S) }},
	{Column{"arrival_latency_p99_s", Float, true, "open loop: latency from the planned arrival p99"}, func(m *schemas.Metrics) any { return f64(m.ArrivalLatencyP99S) }},
	{Column{"goodput_per_s", Float, true, "successes meeting the SLO per second (with --slo)"}, func(m *schemas.Metrics) any { return f64(m.Goodput) }},
	{Column{"arrival_latency_growth", Float, true, "open loop: last third's median latency from arrival over the first third's"}, func(m *schemas.Metrics) any { return f64(m.ArrivalGrowth) }},
	{Column{"backlog_growth", Float, true, "open loop: backlog, last third less first"}, func(m *schemas.Metrics) any { return f64(m.BacklogGrowth) }},
}

// telemetryColumns follow the tasks' figures.
var telemetryColumns = []claimColumn{
	{Column{"gpu_util_mean", Float, true, "GPU utilisation over the window, mean (sum over the target's GPUs)"}, func(m *schemas.Metrics) any { return f64(m.GPUUtilMean) }},
	{Column{"gpu_util_max", Float, true, "GPU utilisation, max"}, func(m *schemas.Metrics) any { return f64(m.GPUUtilMax) }},
	{Column{"gpu_mem_peak_bytes", Float, true, "GPU memory peak"}, func(m *schemas.Metrics) any { return f64(m.GPUMemPeakBytes) }},
	{Column{"gpu_power_peak_w", Float, true, "GPU power peak"}, func(m *schemas.Metrics) any { return f64(m.GPUPowerPeakW) }},
	{Column{"host_cpu_mean", Float, true, "host CPU over the window, mean"}, func(m *schemas.Metrics) any { return f64(m.HostCPUMean) }},
	{Column{"cache_hits", Float, true, "growth of the server's cache counter; null: not observable, never zero hits"}, func(m *schemas.Metrics) any { return f64(m.CacheHits) }},
	{Column{"cache_hits_counter", String, false, "the counter cache_hits is the growth of"}, func(m *schemas.Metrics) any { return m.CacheHitsCounter }},
	{Column{"telemetry_note", String, false, "why the sampled fields are null although the run was sampled"}, func(m *schemas.Metrics) any { return m.TelemetryNote }},
	{Column{"errors", String, false, "failed measured requests by error class, a JSON object (`{\"timeout\":2}`)"}, func(m *schemas.Metrics) any { return errorsJSON(m.Errors) }},
}

// taskFigureColumns are every registered task's figures (internal/task's
// Figurer), by task name then the task's order, one column per figure
// name (null in another task's rows, and where not observed).
func taskFigureColumns() []claimColumn {
	var out []claimColumn
	seen := map[string]bool{}
	for _, name := range task.Names() {
		tk, _ := task.Lookup(name)
		f := task.FiguresOf(tk)
		if f == nil {
			continue
		}
		for _, fs := range f.Figures() {
			if seen[fs.Name] {
				continue
			}
			seen[fs.Name] = true
			n := fs.Name
			out = append(out, claimColumn{Column{n, Float, true, name + ": " + fs.Label.In("en") + " (" + fs.Unit + ")"}, func(m *schemas.Metrics) any { return f64(m.Figure(n)) }})
		}
	}
	return out
}

// claimKeys lead every claims row.
var claimKeys = []Column{
	{"task", String, false, "the run's task"},
	{"target", String, false, "the target's name"},
	{"concurrency", Int, false, "the level (as in the requests table)"},
	{"offered_rate_per_s", Float, true, "an open loop's offered rate at the level; null in a closed loop"},
	{"row", String, false, "`repeat` (one repeat's figures), then `median`, `min` and `max` over the level's repeats (field by field)"},
	{"repeat", Int, false, "the repeat, 1-based; 0 on a median, min or max row"},
	{"wer_unit", String, false, "the scoring unit of wer (`word` or `char`); empty without references"},
}

// ClaimColumns are the columns of the claims table of a run that asked
// for no latency percentiles, in order; ClaimColumnsFor a run's.
func ClaimColumns() []Column { return ClaimColumnsFor(schemas.Run{}) }

// ClaimColumnsFor are the claims table's columns for run: ClaimColumns,
// then one latency_p<p>_s column (schemas.LatencyPercentileName) per
// percentile run --percentiles asked for (run.json's
// protocol.percentiles), in its order, less the fixed p50, p90, p95 and
// p99.
func ClaimColumnsFor(run schemas.Run) []Column {
	out := append([]Column(nil), claimKeys...)
	for _, c := range claimColumns {
		out = append(out, c.Column)
	}
	for _, p := range askedPercentiles(run) {
		out = append(out, Column{schemas.LatencyPercentileName(p), Float, true, ""})
	}
	return out
}

// askedPercentiles are run --percentiles's percentiles less the fixed
// ones (p50, p90, p95, p99: their columns hold the same values).
func askedPercentiles(run schemas.Run) []float64 {
	var out []float64
	for _, p := range run.Protocol.Percentiles {
		switch p {
		case 50, 90, 95, 99:
			continue
		}
		out = append(out, p)
	}
	return out
}

func errorsJSON(m map[string]int) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		b = fmt.Appendf(b, "%d", m[k])
	}
	return string(append(b, '}'))
}

// Claims is the claims table: per target (claims.json order) and level,
// a row per repeat, then the level's median, min and max rows.
func Claims(run schemas.Run, cl schemas.Claims) Table {
	t := Table{Name: "claims", Columns: ClaimColumnsFor(run)}
	asked := askedPercentiles(run)
	name := TaskName(run)
	unit := ""
	if cl.Scoring != nil {
		unit = cl.Scoring.Unit
		if unit == "" {
			unit = "word"
		}
	}
	open := run.Protocol.Mode == schemas.ModeOpen
	for _, tc := range cl.Targets {
		for _, lc := range tc.Levels {
			var rate any
			if open && lc.Concurrency >= 1 && lc.Concurrency <= len(run.Protocol.RequestRates) {
				rate = run.Protocol.RequestRates[lc.Concurrency-1]
			}
			add := func(kind string, repeat int, m *schemas.Metrics) {
				row := []any{name, tc.Target, int64(lc.Concurrency), rate, kind, int64(repeat), unit}
				for _, c := range claimColumns {
					row = append(row, c.get(m))
				}
				for _, p := range asked {
					var v any
					for _, lp := range m.LatencyPercentiles {
						if lp.P == p {
							v = f64(lp.LatencyS)
						}
					}
					row = append(row, v)
				}
				t.Rows = append(t.Rows, row)
			}
			for i := range lc.Repeats {
				add("repeat", i+1, &lc.Repeats[i])
			}
			add("median", 0, &lc.Median)
			add("min", 0, &lc.Min)
			add("max", 0, &lc.Max)
		}
	}
	return t
}

// SortRecords orders recs as the requests table lists them: by target in
// run.json order, the sweep's records before the cache probe's, then by
// level in run order, repeat and seq (records files come in their names'
// order, which puts c16 before c2).
func SortRecords(run schemas.Run, recs []schemas.Record) {
	targets := map[string]int{}
	for i, t := range run.Targets {
		targets[t.Name] = i
	}
	levels := map[int]int{}
	for i, c := range run.Protocol.Levels {
		if _, ok := levels[c]; !ok {
			levels[c] = i
		}
	}
	key := func(r *schemas.Record) [5]int {
		t, ok := targets[r.Target]
		if !ok {
			t = len(targets)
		}
		probe := 0
		if r.Phase == schemas.PhaseProbe {
			probe = 1
		}
		l, ok := levels[r.Concurrency]
		if !ok {
			l = len(levels) + r.Concurrency
		}
		return [5]int{t, probe, l, r.Repeat, r.Seq}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := key(&recs[i]), key(&recs[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return recs[i].Target < recs[j].Target
	})
}
