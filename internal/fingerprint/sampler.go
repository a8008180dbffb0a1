package fingerprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// DefaultSampleInterval is how often a Sampler reads the GPUs and the host.
const DefaultSampleInterval = 200 * time.Millisecond

// gpuReader reads one GPU's instantaneous state; the NVML implementation
// lives behind the cgo build tag.
type gpuReader interface {
	read(index int) (schemas.GPUSample, error)
	close()
}

// SamplerConfig says what a Sampler reads and where it writes.
type SamplerConfig struct {
	Interval time.Duration // DefaultSampleInterval when zero
	// Anchor is the run's start (with its monotonic reading): samples carry
	// t_ns offsets from it, like records.
	Anchor time.Time
	GPUs   []int     // NVML indices to sample; none: the host only
	Host   io.Writer // telemetry/host.jsonl; nil: not written
	GPU    io.Writer // telemetry/gpu.jsonl; nil: not written

	gpus gpuReader // tests inject go-nvml's mocks here
}

// Sampler reads the host (CPU from /proc/stat deltas, memory from
// /proc/meminfo) and the GPUs every interval, writes each sample as a JSONL
// line and keeps them to summarise windows of the run.
type Sampler struct {
	cfg    SamplerConfig
	gpuErr error
	cancel context.CancelFunc
	done   chan struct{}
	stop   sync.Once

	mu       sync.Mutex
	host     []schemas.HostSample
	gpu      []schemas.GPUSample
	prevCPU  cpuTimes
	havePrev bool
	hostEnc  *json.Encoder
	gpuEnc   *json.Encoder
	err      error
}

// StartSampler takes a first sample and then one every interval until ctx
// ends or Stop is called. GPU sampling that cannot start (no NVML) is not
// an error: GPUError says why and the host is still sampled.
func StartSampler(ctx context.Context, cfg SamplerConfig) *Sampler {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultSampleInterval
	}
	if cfg.Anchor.IsZero() {
		cfg.Anchor = time.Now()
	}
	s := &Sampler{cfg: cfg, done: make(chan struct{})}
	if cfg.Host != nil {
		s.hostEnc = json.NewEncoder(cfg.Host)
	}
	if cfg.GPU != nil {
		s.gpuEnc = json.NewEncoder(cfg.GPU)
	}
	if len(cfg.GPUs) > 0 && s.cfg.gpus == nil {
		s.cfg.gpus, s.gpuErr = openGPUs()
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.Sample()
	go s.loop(ctx)
	return s
}

func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sample()
		}
	}
}

// GPUError says why the GPUs are not sampled; nil when they are or when
// none were asked for.
func (s *Sampler) GPUError() error { return s.gpuErr }

// Sample takes one sample now, besides the periodic ones: the runner calls
// it at the edges of each level/repeat so that every window has samples
// however short it is.
func (s *Sampler) Sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := max(time.Since(s.cfg.Anchor).Nanoseconds(), 0)
	if s.cfg.gpus != nil {
		for _, i := range s.cfg.GPUs {
			g, err := s.cfg.gpus.read(i)
			if err != nil {
				if s.gpuErr == nil {
					s.gpuErr = err
				}
				continue
			}
			g.TNs, g.GPU = t, i
			s.gpu = append(s.gpu, g)
			s.write(s.gpuEnc, g)
		}
	}
	h := schemas.HostSample{TNs: t}
	if ct, err := readCPUTimes(); err == nil {
		if s.havePrev {
			h.CPUPct = busyPct(s.prevCPU, ct)
		}
		s.prevCPU, s.havePrev = ct, true
	}
	if m, err := readMeminfo(); err == nil {
		h.MemTotalBytes, h.MemUsedBytes = m.total, max(m.total-m.available, 0)
	}
	if l, err := readLoadavg(); err == nil {
		h.Load1 = l[0]
	}
	s.host = append(s.host, h)
	s.write(s.hostEnc, h)
}

func (s *Sampler) write(enc *json.Encoder, v any) {
	if enc == nil || s.err != nil {
		return
	}
	if err := enc.Encode(v); err != nil {
		s.err = fmt.Errorf("write telemetry: %w", err)
	}
}

// Stop ends sampling and reports the first write error. It is idempotent.
func (s *Sampler) Stop() error {
	s.stop.Do(func() {
		s.cancel()
		<-s.done
		if s.cfg.gpus != nil {
			s.cfg.gpus.close()
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Summary of one window of a run: a level/repeat of one target. A nil field
// had no sample in the window.
type Summary struct {
	// Mean and max utilisation over every sample of every GPU of the window.
	GPUUtilMean *float64
	GPUUtilMax  *float64
	// Peaks over the sampling instants of the sum over the window's GPUs:
	// a server spread over two GPUs uses the memory and power of both.
	GPUMemPeakBytes *float64
	GPUPowerPeakW   *float64
	// Mean busy share of all host CPUs over the samples ending in the window.
	HostCPUMean *float64
	GPUSamples  int
	HostSamples int
}

// ErrNoSamples is returned by Summary for a window with no sample at all.
var ErrNoSamples = errors.New("no telemetry sample in the window")

// Summary summarises the samples with fromNs <= t_ns <= toNs of the given
// GPUs (all sampled GPUs when gpus is nil).
func (s *Sampler) Summary(fromNs, toNs int64, gpus []int) (Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return summarise(s.host, s.gpu, fromNs, toNs, gpus)
}

func summarise(host []schemas.HostSample, gpu []schemas.GPUSample, fromNs, toNs int64, gpus []int) (Summary, error) {
	var sum Summary
	want := func(i int) bool {
		if gpus == nil {
			return true
		}
		for _, g := range gpus {
			if g == i {
				return true
			}
		}
		return false
	}
	var utilSum float64
	var utilN int
	memAt, powAt := map[int64]float64{}, map[int64]float64{}
	for _, g := range gpu {
		if g.TNs < fromNs || g.TNs > toNs || !want(g.GPU) {
			continue
		}
		sum.GPUSamples++
		if g.UtilPct != nil {
			utilSum += *g.UtilPct
			utilN++
			if sum.GPUUtilMax == nil || *g.UtilPct > *sum.GPUUtilMax {
				sum.GPUUtilMax = ptr(*g.UtilPct)
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
		sum.GPUUtilMean = ptr(utilSum / float64(utilN))
	}
	sum.GPUMemPeakBytes, sum.GPUPowerPeakW = peak(memAt), peak(powAt)
	var cpuSum float64
	var cpuN int
	for _, h := range host {
		if h.TNs < fromNs || h.TNs > toNs {
			continue
		}
		sum.HostSamples++
		if h.CPUPct != nil {
			cpuSum += *h.CPUPct
			cpuN++
		}
	}
	if cpuN > 0 {
		sum.HostCPUMean = ptr(cpuSum / float64(cpuN))
	}
	if sum.GPUSamples == 0 && sum.HostSamples == 0 {
		return sum, ErrNoSamples
	}
	return sum, nil
}

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

// Apply copies the summary into the telemetry fields of claims metrics,
// leaving those without samples unset.
func (s Summary) Apply(m *schemas.Metrics) {
	m.GPUUtilMean, m.GPUUtilMax = s.GPUUtilMean, s.GPUUtilMax
	m.GPUMemPeakBytes, m.GPUPowerPeakW = s.GPUMemPeakBytes, s.GPUPowerPeakW
	m.HostCPUMean = s.HostCPUMean
}
