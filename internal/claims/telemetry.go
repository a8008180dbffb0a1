package claims

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/benchseal/benchseal/schemas"
)

// Telemetry is what the run directory's telemetry/ holds: the samples and
// the per-step lines, all raw. Compute derives the telemetry and cache
// fields of the claims from it (WithTelemetry); this is the only place
// they are computed (internal/fingerprint only records).
type Telemetry struct {
	Host  []schemas.HostSample    // telemetry/host.jsonl
	GPU   []schemas.GPUSample     // telemetry/gpu.jsonl
	Steps []schemas.StepTelemetry // telemetry/steps.jsonl
}

// Option changes what Compute takes into account.
type Option func(*options)

type options struct{ tel *Telemetry }

// WithTelemetry makes Compute fill gpu_util_mean, gpu_util_max,
// gpu_mem_peak_bytes, gpu_power_peak_w, host_cpu_mean and cache_hits.
func WithTelemetry(t Telemetry) Option { return func(o *options) { o.tel = &t } }

// LoadTelemetry reads telemetry/host.jsonl, gpu.jsonl and steps.jsonl of a
// run directory or extracted bundle. A missing file is not an error (a run
// without samplers has none); a line that does not decode is a *LineError,
// except a cut-short last line, which is skipped like a records file's.
func LoadTelemetry(fsys fs.FS) (Telemetry, error) {
	var t Telemetry
	var errs []error
	errs = append(errs, readJSONL(fsys, "telemetry/host.jsonl", &t.Host),
		readJSONL(fsys, "telemetry/gpu.jsonl", &t.GPU),
		readJSONL(fsys, "telemetry/steps.jsonl", &t.Steps))
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

// applyTelemetry fills the telemetry fields of m. Definitions (the samples
// with fromNs <= t_ns <= toNs of the measured window; GPUs: the target's
// run.json gpus):
//
//   - gpu_util_mean, gpu_util_max: mean and max of util_pct over every
//     sample of every GPU of the target;
//   - gpu_mem_peak_bytes, gpu_power_peak_w: the largest, over sampling
//     instants, of the sum over the target's GPUs of mem_used_bytes and
//     power_w (a server on two GPUs uses both);
//   - host_cpu_mean: mean cpu_pct of the host samples (those with one);
//   - cache_hits: CacheDelta of cache_before and cache_after of the step's
//     steps.jsonl line; absent when it is an error.
func applyTelemetry(m *schemas.Metrics, t *Telemetry, w window) {
	if len(w.gpus) > 0 {
		var utilSum float64
		var utilN int
		memAt, powAt := map[int64]float64{}, map[int64]float64{}
		for _, g := range t.GPU {
			if g.TNs < w.fromNs || g.TNs > w.toNs || !slices.Contains(w.gpus, g.GPU) {
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
			}
			if g.PowerW != nil {
				powAt[g.TNs] += *g.PowerW
			}
		}
		if utilN > 0 {
			m.GPUUtilMean = ptr(utilSum / float64(utilN))
		}
		m.GPUMemPeakBytes, m.GPUPowerPeakW = peak(memAt), peak(powAt)
	}
	var cpuSum float64
	var cpuN int
	for _, h := range t.Host {
		if h.TNs < w.fromNs || h.TNs > w.toNs || h.CPUPct == nil {
			continue
		}
		cpuSum += *h.CPUPct
		cpuN++
	}
	if cpuN > 0 {
		m.HostCPUMean = ptr(cpuSum / float64(cpuN))
	}
	for _, s := range t.Steps {
		if s.Target != w.target || s.Concurrency != w.concurrency || s.Repeat != w.repeat {
			continue
		}
		if _, d, err := CacheDelta(s.CacheBefore, s.CacheAfter); err == nil {
			m.CacheHits = &d
		}
		break
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
// schemas.CacheHitCounters (the one ordered list, shared with
// internal/fingerprint, which records the counters) present in both, in
// the counter's unit (items or tokens), and that counter's name. It is
// ErrNoCacheCounter when none is present in both, and a
// *CounterResetError when the first one went down: a later counter is
// not tried then, since a restart resets them all.
func CacheDelta(before, after map[string]float64) (counter string, hits float64, err error) {
	for _, name := range schemas.CacheHitCounters {
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
