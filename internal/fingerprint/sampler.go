package fingerprint

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
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

	gpus gpuReader // tests inject a reader of the stub library here
}

// Sampler reads the host (CPU from /proc/stat deltas, memory from
// /proc/meminfo) and the GPUs every interval and writes each sample as a
// JSONL line. It keeps none and summarises nothing: internal/claims
// computes every figure of a window from the written samples.
type Sampler struct {
	cfg    SamplerConfig
	gpuErr error
	cancel context.CancelFunc
	done   chan struct{}
	stop   sync.Once

	mu       sync.Mutex
	prevCPU  cpuTimes
	havePrev bool
	// prevProc is benchseal's own CPU time (procCPU) at the previous
	// sample and when it was read.
	prevProc, prevProcAt int64
	haveProc             bool
	hostEnc              *json.Encoder
	gpuEnc               *json.Encoder
	err                  error
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

// Sample takes one sample now, besides the periodic ones, and returns its
// t_ns: the Recorder calls it at the edges of each measured window so that
// every window has samples however short it is.
func (s *Sampler) Sample() int64 {
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
			s.write(s.gpuEnc, g)
		}
	}
	h := schemas.HostSample{TNs: t}
	cpus := runtime.NumCPU()
	if ct, err := readCPUTimes(); err == nil {
		if s.havePrev {
			h.CPUPct = busyPct(s.prevCPU, ct)
		}
		s.prevCPU, s.havePrev = ct, true
		if ct.cpus > 0 {
			cpus = ct.cpus // the CPUs cpu_pct is a share of
		}
	}
	if p, err := procCPU(); err == nil {
		h.ProcCPUNs = &p
		if s.haveProc && t > s.prevProcAt {
			h.ProcCPUPct = procPct(p-s.prevProc, t-s.prevProcAt, cpus)
		}
		s.prevProc, s.prevProcAt, s.haveProc = p, t, true
	}
	if m, err := readMeminfo(); err == nil {
		h.MemTotalBytes, h.MemUsedBytes = m.total, max(m.total-m.available, 0)
	}
	if l, err := readLoadavg(); err == nil {
		h.Load1 = l[0]
	}
	s.write(s.hostEnc, h)
	return t
}

// procPct is benchseal's share of all cpus (0-100) over wallNs, from the
// CPU time it used (cpuNs), as cpu_pct is the host's: the client's own
// load beside everything else the host ran.
func procPct(cpuNs, wallNs int64, cpus int) *float64 {
	if wallNs <= 0 || cpus <= 0 || cpuNs < 0 {
		return nil
	}
	p := min(max(100*float64(cpuNs)/(float64(wallNs)*float64(cpus)), 0), 100)
	return &p
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
