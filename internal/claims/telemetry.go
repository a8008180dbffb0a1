package claims

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Telemetry is what the run directory's telemetry/ holds: the samples and
// the per-step lines, all raw. Compute derives the telemetry and cache
// fields of the claims from it (WithTelemetry); this is the only place
// they are computed (internal/fingerprint only records).
type Telemetry struct {
	Host  []schemas.HostSample    // telemetry/host.jsonl
	GPU   []schemas.GPUSample     // telemetry/gpu.jsonl
	Steps []schemas.StepTelemetry // telemetry/steps.jsonl, but discarded attempts' lines
	// Discarded are steps.jsonl's lines of discarded attempts (a step
	// the runner measured again, internal/bench): no claim is computed
	// from them; verify holds them to their records.
	Discarded []schemas.StepTelemetry
	// Probes: telemetry/cache-probes.jsonl, the cache counters around each
	// active cache probe.
	Probes []schemas.ProbeTelemetry
	// Scrapes are the stage histograms of the raw /metrics scrapes of
	// the steps Steps names (servers/<t>/metrics/*.prom), from which
	// Compute derives each repeat's server block (server.go).
	Scrapes map[ScrapeKey]Scrape
	// Heard is what a round trip's ASR server heard of each measured
	// answer (roundtrip/<target>.jsonl), by request id: a tts run's
	// quality figure (task.RoundTripper).
	Heard map[string]schemas.Heard
}

// Option changes what Compute takes into account.
type Option func(*options)

type options struct {
	tel     *Telemetry
	quality task.Quality
}

// WithTelemetry makes Compute fill gpu_util_mean, gpu_util_max,
// gpu_mem_peak_bytes, gpu_power_peak_w, host_cpu_mean and cache_hits.
func WithTelemetry(t Telemetry) Option { return func(o *options) { o.tel = &t } }

// LoadTelemetry reads telemetry/host.jsonl, gpu.jsonl and steps.jsonl of a
// run directory or extracted bundle, and the stage histograms of the
// /metrics scrapes of the steps steps.jsonl names. A missing file is not an error (a run
// without samplers has none); a line that does not decode is a *LineError,
// except a cut-short last line, which is skipped like a records file's.
func LoadTelemetry(fsys fs.FS) (Telemetry, error) {
	var t Telemetry
	var errs []error
	errs = append(errs, readJSONL(fsys, "telemetry/host.jsonl", &t.Host),
		readJSONL(fsys, "telemetry/gpu.jsonl", &t.GPU),
		readJSONL(fsys, schemas.StepsFile, &t.Steps),
		readJSONL(fsys, schemas.CacheProbesFile, &t.Probes))
	kept := t.Steps[:0]
	for _, s := range t.Steps {
		if s.Discarded {
			t.Discarded = append(t.Discarded, s)
		} else {
			kept = append(kept, s)
		}
	}
	t.Steps = kept
	var err error
	t.Scrapes, err = loadScrapes(fsys, t.Steps)
	errs = append(errs, err)
	t.Heard, err = LoadHeard(fsys)
	errs = append(errs, err)
	return t, errors.Join(errs...)
}

func readJSONL[T any](fsys fs.FS, name string, out *[]T) error {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err != nil && err != io.EOF {
			return &LineError{name, n, err}
		}
		complete := err == nil
		if len(line) > 0 {
			var v T
			if derr := json.Unmarshal(line, &v); derr != nil {
				if !complete {
					return nil // cut short by a crash: keep what is whole
				}
				return &LineError{name, n, derr}
			}
			*out = append(*out, v)
		}
		if !complete {
			return nil
		}
	}
}

// window is one target's measured window at one level/repeat.
type window struct {
	target       string
	concurrency  int
	repeat       int
	fromNs, toNs int64
	gpus         []int
}

// TelemetryNotObserved is the telemetry_note of a level/repeat whose
// window holds fewer than 2 sampling instants although the run was
// sampled: its sampled fields are absent, not zero.
const TelemetryNotObserved = "not observed (window shorter than --sample-interval)"

// applyTelemetry fills the telemetry fields of m. Definitions (GPUs: the
// target's run.json gpus):
//
//   - the window's samples are those with lo <= t_ns <= hi, where lo is
//     the earlier of the first measured start_ns and the step's
//     steps.jsonl sample_start_ns, and hi the later of the last end_ns and
//     sample_end_ns: the Recorder samples just before the first measured
//     request and just after the last, so that every window has samples
//     however short it is;
//   - fewer than 2 distinct sampling instants (host and the target's GPUs)
//     in the window, in a run that has samples: no sampled field, and
//     telemetry_note is TelemetryNotObserved;
//   - gpu_util_mean, gpu_util_max: mean and max of util_pct over every
//     sample of every GPU of the target;
//   - gpu_mem_peak_bytes, gpu_power_peak_w: the largest, over sampling
//     instants, of the sum over the target's GPUs of mem_used_bytes and
//     power_w (a server on two GPUs uses both);
//   - gpu_peaks, for a target on more than one GPU: per GPU, in run.json
//     order, the largest mem_used_bytes and power_w of its own samples;
//   - host_cpu_mean: mean cpu_pct of the host samples (those with one);
//   - client_cpu_mean: mean proc_cpu_pct of the host samples (those with
//     one): benchseal's own share of the CPUs;
//   - cache_hits: hits of the measured requests, CacheDelta of
//     cache_measure (scraped after the warm-ups) and cache_after of the
//     step's steps.jsonl line, with cache_hits_scope "measured"; a line
//     without cache_measure (a run made before it existed, or that scrape
//     failed) gives CacheDelta of cache_before and cache_after, the whole
//     step with its warm-ups, and no cache_hits_scope; absent when the
//     delta is an error. cache_hits_counter names the counter it is the
//     growth of (CacheHitsAnswered says what its unit is).
func applyTelemetry(m *schemas.Metrics, t *Telemetry, w window) {
	var step *schemas.StepTelemetry
	for i := range t.Steps {
		if s := &t.Steps[i]; s.Target == w.target && s.Concurrency == w.concurrency && s.Repeat == w.repeat {
			step = s
			break
		}
	}
	if step != nil {
		if step.CacheMeasure != nil {
			if name, d, err := CacheDelta(step.CacheMeasure, step.CacheAfter); err == nil {
				m.CacheHits, m.CacheHitsScope, m.CacheHitsCounter = &d, schemas.CacheHitsMeasured, name
			}
		} else if name, d, err := CacheDelta(step.CacheBefore, step.CacheAfter); err == nil {
			m.CacheHits, m.CacheHitsCounter = &d, name // the whole step, warm-ups included (no cache_hits_scope)
		}
		if step.SampleStartNs != nil && *step.SampleStartNs < w.fromNs {
			w.fromNs = *step.SampleStartNs
		}
		if step.SampleEndNs != nil && *step.SampleEndNs > w.toNs {
			w.toNs = *step.SampleEndNs
		}
	}
	in := func(tNs int64) bool { return tNs >= w.fromNs && tNs <= w.toNs }
	instants := map[int64]bool{}
	for _, h := range t.Host {
		if in(h.TNs) {
			instants[h.TNs] = true
		}
	}
	for _, g := range t.GPU {
		if in(g.TNs) && slices.Contains(w.gpus, g.GPU) {
			instants[g.TNs] = true
		}
	}
	if len(t.Host)+len(t.GPU) == 0 {
		return // not sampled at all: nothing to say about the window
	}
	if len(instants) < 2 {
		m.TelemetryNote = TelemetryNotObserved
		return
	}
	if len(w.gpus) > 0 {
		var utilSum float64
		var utilN int
		memAt, powAt := map[int64]float64{}, map[int64]float64{}
		memOf, powOf := map[int]map[int64]float64{}, map[int]map[int64]float64{}
		for _, g := range t.GPU {
			if !in(g.TNs) || !slices.Contains(w.gpus, g.GPU) {
				continue
			}
			if g.UtilPct != nil {
				utilSum += *g.UtilPct
				utilN++
				if m.GPUUtilMax == nil || *g.UtilPct > *m.GPUUtilMax {
					m.GPUUtilMax = ptr(*g.UtilPct)
				}
			}
			if g.MemUsedBytes != nil {
				memAt[g.TNs] += float64(*g.MemUsedBytes)
				addAt(memOf, g.GPU, g.TNs, float64(*g.MemUsedBytes))
			}
			if g.PowerW != nil {
				powAt[g.TNs] += *g.PowerW
				addAt(powOf, g.GPU, g.TNs, *g.PowerW)
			}
		}
		if utilN > 0 {
			m.GPUUtilMean = ptr(utilSum / float64(utilN))
		}
		m.GPUMemPeakBytes, m.GPUPowerPeakW = peak(memAt), peak(powAt)
		if len(w.gpus) > 1 {
			for _, i := range w.gpus {
				m.GPUPeaks = append(m.GPUPeaks, schemas.GPUPeak{GPU: i, MemPeakBytes: peak(memOf[i]), PowerPeakW: peak(powOf[i])})
			}
		}
	}
	var cpuSum, procSum float64
	var cpuN, procN int
	for _, h := range t.Host {
		if !in(h.TNs) {
			continue
		}
		if h.CPUPct != nil {
			cpuSum += *h.CPUPct
			cpuN++
		}
		if h.ProcCPUPct != nil {
			procSum += *h.ProcCPUPct
			procN++
		}
	}
	if cpuN > 0 {
		m.HostCPUMean = ptr(cpuSum / float64(cpuN))
	}
	if procN > 0 {
		m.ClientCPUMean = ptr(procSum / float64(procN))
	}
}

func addAt(m map[int]map[int64]float64, gpu int, tNs int64, v float64) {
	if m[gpu] == nil {
		m[gpu] = map[int64]float64{}
	}
	m[gpu][tNs] += v
}

// summarizeTelemetry sets the median, min and max of gpu_peaks, GPU by GPU
// and field by field over the repeats that have them (as every optional
// field), and telemetry_note when every repeat has the same note.
func summarizeTelemetry(reps []schemas.Metrics, med, lo, hi *schemas.Metrics) {
	note := reps[0].TelemetryNote
	for _, r := range reps {
		if r.TelemetryNote != note {
			note = ""
		}
	}
	med.TelemetryNote, lo.TelemetryNote, hi.TelemetryNote = note, note, note
	scope := reps[0].CacheHitsScope
	for _, r := range reps {
		if r.CacheHitsScope != scope {
			scope = "" // mixed: some repeats count their warm-ups
		}
	}
	med.CacheHitsScope, lo.CacheHitsScope, hi.CacheHitsScope = scope, scope, scope
	counter := reps[0].CacheHitsCounter
	for _, r := range reps {
		if r.CacheHitsCounter != counter {
			counter = "" // mixed: the repeats read different counters
		}
	}
	med.CacheHitsCounter, lo.CacheHitsCounter, hi.CacheHitsCounter = counter, counter, counter
	var order []int
	mem, pow := map[int][]float64{}, map[int][]float64{}
	for _, r := range reps {
		for _, p := range r.GPUPeaks {
			if !slices.Contains(order, p.GPU) {
				order = append(order, p.GPU)
			}
			if p.MemPeakBytes != nil {
				mem[p.GPU] = append(mem[p.GPU], *p.MemPeakBytes)
			}
			if p.PowerPeakW != nil {
				pow[p.GPU] = append(pow[p.GPU], *p.PowerPeakW)
			}
		}
	}
	spread := func(v []float64) (a, b, c *float64) {
		if len(v) == 0 {
			return nil, nil, nil
		}
		m := median(v) // sorts v
		return &m, ptr(v[0]), ptr(v[len(v)-1])
	}
	for _, g := range order {
		mm, ml, mh := spread(mem[g])
		pm, pl, ph := spread(pow[g])
		med.GPUPeaks = append(med.GPUPeaks, schemas.GPUPeak{GPU: g, MemPeakBytes: mm, PowerPeakW: pm})
		lo.GPUPeaks = append(lo.GPUPeaks, schemas.GPUPeak{GPU: g, MemPeakBytes: ml, PowerPeakW: pl})
		hi.GPUPeaks = append(hi.GPUPeaks, schemas.GPUPeak{GPU: g, MemPeakBytes: mh, PowerPeakW: ph})
	}
}

// ErrNoCacheCounter: no cache-hit counter is in both scrapes.
var ErrNoCacheCounter = errors.New("no known cache-hit counter in both /metrics scrapes")

// CounterResetError: a counter went down, so the server restarted (or
// reset its metrics) in the window and the delta means nothing.
type CounterResetError struct {
	Counter       string
	Before, After float64
}

func (e *CounterResetError) Error() string {
	return fmt.Sprintf("counter %s went down from %g to %g: the server restarted or reset its metrics", e.Counter, e.Before, e.After)
}

// CacheDelta is after minus before of the first of
// engine.CacheHitCounters (the one ordered list, shared with
// internal/fingerprint, which records the counters) present in both, in
// the counter's unit (items or tokens), and that counter's name. It is
// ErrNoCacheCounter when none is present in both, and a
// *CounterResetError when the first one went down: a later counter is
// not tried then, since a restart resets them all.
func CacheDelta(before, after map[string]float64) (counter string, hits float64, err error) {
	for _, name := range engine.CacheHitCounters {
		b, okb := before[name]
		a, oka := after[name]
		if !okb || !oka {
			continue
		}
		if a < b {
			return name, 0, &CounterResetError{Counter: name, Before: b, After: a}
		}
		return name, a - b, nil
	}
	return "", 0, ErrNoCacheCounter
}

// peak takes the largest value; map order does not matter for a maximum.
func peak(m map[int64]float64) *float64 {
	var p *float64
	for _, v := range m {
		if p == nil || v > *p {
			p = ptr(v)
		}
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// LoadDirTelemetry is LoadDir plus LoadTelemetry: everything Compute needs
// to recompute the claims.json a run wrote.
func LoadDirTelemetry(fsys fs.FS) (schemas.Run, []schemas.Record, Telemetry, error) {
	run, recs, err := LoadDir(fsys)
	if err != nil {
		return run, recs, Telemetry{}, err
	}
	tel, err := LoadTelemetry(fsys)
	if err != nil {
		return run, recs, tel, fmt.Errorf("telemetry: %w", err)
	}
	return run, recs, tel, nil
}

// CacheHitsAnswered says whether m's cache_hits counts requests answered
// from a cache: its counter's row in internal/engine counts whole inputs
// (engine.CountsInputs). Prefix-cache token counters are not (a shared
// prompt prefix grows them honestly). known is false when cache_hits
// names no counter of the table (claims sealed before
// cache_hits_counter, or repeats that read different counters); a
// caller then cannot tell and must say so, never call it token reuse.
func CacheHitsAnswered(m schemas.Metrics) (answered, known bool) {
	c, ok := engine.CacheCounterOf(m.CacheHitsCounter)
	if !ok {
		return false, false
	}
	return c.AnswersFromCache(), true
}

// LoadHeard reads the roundtrip/<target>.jsonl of every target
// roundtrip/asr.json says answers were sent for, by request id; nil when
// the run has no round trip.
func LoadHeard(fsys fs.FS) (map[string]schemas.Heard, error) {
	b, err := fs.ReadFile(fsys, schemas.RoundTripASRFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sum schemas.RoundTripASR
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", schemas.RoundTripASRFile, err)
	}
	out := map[string]schemas.Heard{}
	for _, target := range slices.Sorted(maps.Keys(sum.Sent)) {
		var hs []schemas.Heard
		if err := readJSONL(fsys, schemas.RoundTripPath(target), &hs); err != nil {
			return out, err
		}
		for _, h := range hs {
			out[h.RequestID] = h
		}
	}
	return out, nil
}
