package claims

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

func f64(v float64) *float64 { return &v }
func u64(v uint64) *uint64   { return &v }

// val shows an optional figure in a failure message.
func val(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Telemetry fields: only samples inside the measured window, only the
// target's GPUs; memory and power summed over GPUs per instant; cache
// hits from the raw counters, preferring the multimodal one.
func TestComputeWithTelemetry(t *testing.T) {
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1},
		Targets: []schemas.Target{{Name: "a", GPUs: []int{0, 1}}, {Name: "b"}}}
	recs := []schemas.Record{
		{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 100, EndNs: 200, OK: true},
		{Target: "b", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 300, EndNs: 400, OK: true},
	}
	tel := Telemetry{
		GPU: []schemas.GPUSample{
			{TNs: 50, GPU: 0, UtilPct: f64(99), MemUsedBytes: u64(1000), PowerW: f64(999)}, // before the window
			{TNs: 150, GPU: 0, UtilPct: f64(40), MemUsedBytes: u64(10), PowerW: f64(100)},
			{TNs: 150, GPU: 1, UtilPct: f64(60), MemUsedBytes: u64(20), PowerW: f64(50)},
			{TNs: 150, GPU: 2, UtilPct: f64(100), MemUsedBytes: u64(500), PowerW: f64(500)}, // not a's
			{TNs: 190, GPU: 0, UtilPct: f64(80), MemUsedBytes: u64(25), PowerW: f64(120)},
		},
		Host: []schemas.HostSample{{TNs: 120, CPUPct: f64(10), ProcCPUPct: f64(1)}, {TNs: 180, CPUPct: f64(30), ProcCPUPct: f64(3)}, {TNs: 110}, {TNs: 350, CPUPct: f64(70)}},
		Steps: []schemas.StepTelemetry{
			{Target: "a", Concurrency: 1, Repeat: 1,
				CacheBefore: map[string]float64{"vllm:mm_cache_hits_total": 2, "vllm:prefix_cache_hits_total": 0},
				CacheAfter:  map[string]float64{"vllm:mm_cache_hits_total": 5, "vllm:prefix_cache_hits_total": 100}},
			{Target: "b", Concurrency: 1, Repeat: 1, // went down: restarted, no claim
				CacheBefore: map[string]float64{"sglang:cached_tokens_total": 9}, CacheAfter: map[string]float64{"sglang:cached_tokens_total": 1}},
		},
	}
	cl, err := Compute(run, recs, WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	a := cl.Targets[0].Levels[0].Repeats[0]
	want := map[string]*float64{"util mean": f64(60), "util max": f64(80), "mem peak": f64(30), "power peak": f64(150), "cpu": f64(20), "cache": f64(3), "own cpu": f64(2)}
	got := map[string]*float64{"util mean": a.GPUUtilMean, "util max": a.GPUUtilMax, "mem peak": a.GPUMemPeakBytes,
		"power peak": a.GPUPowerPeakW, "cpu": a.HostCPUMean, "cache": a.CacheHits, "own cpu": a.ClientCPUMean}
	for k, w := range want {
		if got[k] == nil || *got[k] != *w {
			t.Errorf("a %s = %v, want %v", k, got[k], *w)
		}
	}
	if m := cl.Targets[0].Levels[0].Median.ClientCPUMean; m == nil || *m != 2 {
		t.Errorf("median client_cpu_mean = %v, want 2", m)
	}
	if b := cl.Targets[1].Levels[0].Repeats[0]; b.ClientCPUMean != nil {
		t.Errorf("b: client_cpu_mean %v from samples without proc_cpu_pct (a run before it)", *b.ClientCPUMean)
	}
	if a.CacheHits == nil || *cl.Targets[0].Levels[0].Median.CacheHits != 3 {
		t.Error("median cache_hits not carried")
	}
	if a.TelemetryNote != "" || len(a.GPUPeaks) != 2 || *a.GPUPeaks[0].MemPeakBytes != 25 || *a.GPUPeaks[0].PowerPeakW != 120 ||
		a.GPUPeaks[1].GPU != 1 || *a.GPUPeaks[1].PowerPeakW != 50 {
		t.Errorf("a: note %q, per-GPU peaks %+v", a.TelemetryNote, a.GPUPeaks)
	}
	// b's window holds one host sample: one instant is not a mean over a
	// window; it is said to be not observed, not computed from one reading.
	b := cl.Targets[1].Levels[0].Repeats[0]
	if b.GPUUtilMean != nil || b.CacheHits != nil || b.HostCPUMean != nil || b.TelemetryNote != TelemetryNotObserved {
		t.Errorf("b: gpu %v cache %v cpu %v note %q", b.GPUUtilMean, b.CacheHits, b.HostCPUMean, b.TelemetryNote)
	}
	if med := cl.Targets[1].Levels[0].Median; med.TelemetryNote != TelemetryNotObserved {
		t.Errorf("b median: note %q", med.TelemetryNote)
	}
	// A step line without cache_measure (a run made before the measure
	// scrape) keeps its whole-step count, warm-ups included, unlabelled,
	// so old bundles recompute to what they published; with it, cache_hits
	// counts from the scrape after the warm-ups and says so.
	if a.CacheHitsScope != "" || cl.Targets[0].Levels[0].Median.CacheHitsScope != "" {
		t.Errorf("no cache_measure: scope %q, want none", a.CacheHitsScope)
	}
	tel.Steps[0].CacheMeasure = map[string]float64{"vllm:mm_cache_hits_total": 4, "vllm:prefix_cache_hits_total": 50}
	cl, err = Compute(run, recs, WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	if m := cl.Targets[0].Levels[0].Median; m.CacheHits == nil || *m.CacheHits != 1 || m.CacheHitsScope != schemas.CacheHitsMeasured {
		t.Errorf("with cache_measure: cache_hits %v scope %q, want 1 (5 after - 4 after the warm-ups), %q", m.CacheHits, m.CacheHitsScope, schemas.CacheHitsMeasured)
	}
	plain, _ := Compute(run, recs)
	if plain.Targets[0].Levels[0].Repeats[0].HostCPUMean != nil {
		t.Error("Compute without WithTelemetry filled telemetry fields")
	}
}

func telemetryFS(host, gpu, steps string) fstest.MapFS {
	return fstest.MapFS{"telemetry/host.jsonl": {Data: []byte(host)}, "telemetry/gpu.jsonl": {Data: []byte(gpu)},
		"telemetry/steps.jsonl": {Data: []byte(steps)}}
}

func TestLoadTelemetry(t *testing.T) {
	tel, err := LoadTelemetry(fstest.MapFS{})
	if err != nil || len(tel.Host)+len(tel.GPU)+len(tel.Steps) != 0 {
		t.Errorf("no telemetry/: %v %+v", err, tel)
	}
	tel, err = LoadTelemetry(telemetryFS(`{"t_ns":1,"cpu_pct":null,"mem_used_bytes":1,"mem_total_bytes":2,"load1":0}`+"\n"+`{"t_ns":2,"cpu`, "", ""))
	if err != nil || len(tel.Host) != 1 {
		t.Errorf("cut-short last line: %v, %d samples", err, len(tel.Host))
	}
	_, err = LoadTelemetry(telemetryFS("", "{\"t_ns\": \"x\"}\n", ""))
	var le *LineError
	if err == nil || !strings.Contains(err.Error(), "telemetry/gpu.jsonl:1") {
		t.Errorf("bad line: %v", err)
	} else if !asLineError(err, &le) {
		t.Errorf("not a *LineError: %T", err)
	}
}

func asLineError(err error, le **LineError) bool {
	type unwrapper interface{ Unwrap() []error }
	if u, ok := err.(unwrapper); ok {
		for _, e := range u.Unwrap() {
			if x, ok := e.(*LineError); ok {
				*le = x
				return true
			}
		}
	}
	return false
}

func FuzzLoadTelemetry(f *testing.F) {
	seeds := []string{
		`{"t_ns":1,"cpu_pct":12.5,"mem_used_bytes":1,"mem_total_bytes":2,"load1":0.1}` + "\n",
		`{"t_ns":1,"gpu":0,"util_pct":50,"mem_util_pct":null,"mem_used_bytes":3,"power_w":100,"sm_clock_mhz":null,"temp_c":null}`,
		`{"target":"a","concurrency":1,"repeat":1,"start_ns":0,"end_ns":1,"gpus":null,"cache_before":{"x":1},"cache_after":{"x":2}}` + "\n{",
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tel, err := LoadTelemetry(telemetryFS(s, s, s))
		if err != nil {
			return
		}
		// Whatever decodes must be usable by Compute without panicking.
		b, _ := json.Marshal(tel)
		_ = b
		run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1}, Targets: []schemas.Target{{Name: "a", GPUs: []int{0}}}}
		recs := []schemas.Record{{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 0, EndNs: 1 << 40, OK: true}}
		if _, err := Compute(run, recs, WithTelemetry(tel)); err != nil {
			t.Fatal(err)
		}
	})
}

// mockGPUSamples are telemetry/gpu.jsonl lines with the readings of the
// NVML stub library (internal/nvmlstub; fingerprint's TestGPUSamplerStub
// checks the sampler writes them as the stub gives them): GPUs 2 and 3 at
// ticks 0..3, GPU i at tick k using 10*i+k % utilisation, (i+1) GiB + k MiB
// of memory and 100*(i+1)+k W, both GPUs sampled at the same instant.
func mockGPUSamples() []schemas.GPUSample {
	var s []schemas.GPUSample
	for k := range 4 {
		for _, i := range []int{2, 3} {
			s = append(s, schemas.GPUSample{TNs: int64(1000 + 100*k), GPU: i, UtilPct: f64(float64(10*i + k)),
				MemUsedBytes: u64(uint64(i+1)<<30 + uint64(k)<<20), PowerW: f64(float64(100*(i+1) + k))})
		}
	}
	return s
}

// The window figures of the mock GPU samples, over ticks 1..3: a target on
// GPUs 2 and 3, and one on GPU 2 only.
func TestTelemetryMockGPUs(t *testing.T) {
	samples := mockGPUSamples()
	from, to := samples[2].TNs, samples[7].TNs // ticks 1..3
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1},
		Targets: []schemas.Target{{Name: "both", GPUs: []int{2, 3}}, {Name: "two", GPUs: []int{2}}}}
	recs := []schemas.Record{
		{Target: "both", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: from, EndNs: to, OK: true},
		{Target: "two", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: from, EndNs: to, OK: true},
	}
	cl, err := Compute(run, recs, WithTelemetry(Telemetry{GPU: samples}))
	if err != nil {
		t.Fatal(err)
	}
	both, two := cl.Targets[0].Levels[0].Repeats[0], cl.Targets[1].Levels[0].Repeats[0]
	for _, c := range []struct {
		name      string
		got, want *float64
	}{
		// util: GPU 2 at 21,22,23 and GPU 3 at 31,32,33 (tick 0 left out).
		{"both util mean", both.GPUUtilMean, f64(27)},
		{"both util max", both.GPUUtilMax, f64(33)},
		// Peaks of the per-instant sums: tick 3 has (3+4) GiB + 6 MiB and 300+400+6 W.
		{"both mem peak", both.GPUMemPeakBytes, f64(7<<30 + 6<<20)},
		{"both power peak", both.GPUPowerPeakW, f64(706)},
		{"two util mean", two.GPUUtilMean, f64(22)},
		{"two util max", two.GPUUtilMax, f64(23)},
		{"two mem peak", two.GPUMemPeakBytes, f64(3<<30 + 3<<20)},
		{"two power peak", two.GPUPowerPeakW, f64(303)},
	} {
		if c.got == nil || *c.got != *c.want {
			t.Errorf("%s = %v, want %v", c.name, val(c.got), *c.want)
		}
	}
	// Each GPU's own peaks beside the sums (tick 3 again).
	if p := both.GPUPeaks; len(p) != 2 || p[0].GPU != 2 || val(p[0].MemPeakBytes) != float64(3<<30+3<<20) || val(p[0].PowerPeakW) != 303.0 ||
		p[1].GPU != 3 || val(p[1].MemPeakBytes) != float64(4<<30+3<<20) || val(p[1].PowerPeakW) != 403.0 || two.GPUPeaks != nil {
		t.Errorf("per-GPU peaks: both %+v, two %+v", both.GPUPeaks, two.GPUPeaks)
	}
	if both.HostCPUMean != nil || both.CacheHits != nil {
		t.Errorf("no host sample, no step line: host_cpu_mean %v, cache_hits %v", val(both.HostCPUMean), val(both.CacheHits))
	}
}

// host_cpu_mean of the samples internal/fingerprint's TestHostSamplerFixture
// writes from its fake /proc/stat: none (the first sample), 75 %, 25 %.
func TestTelemetryHostWindows(t *testing.T) {
	host := []schemas.HostSample{{TNs: 0}, {TNs: 10, CPUPct: f64(75)}, {TNs: 20, CPUPct: f64(25)}}
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 3}, Targets: []schemas.Target{{Name: "a"}}}
	recs := []schemas.Record{
		{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 0, EndNs: 20, OK: true},  // all three
		{Target: "a", Concurrency: 1, Repeat: 2, Phase: schemas.PhaseMeasure, StartNs: 20, EndNs: 20, OK: true}, // the last
		{Target: "a", Concurrency: 1, Repeat: 3, Phase: schemas.PhaseMeasure, StartNs: 21, EndNs: 22, OK: true}, // none
	}
	cl, err := Compute(run, recs, WithTelemetry(Telemetry{Host: host}))
	if err != nil {
		t.Fatal(err)
	}
	r := cl.Targets[0].Levels[0].Repeats
	// 50, not 33.3: a sample without cpu_pct is not a 0.
	if m := r[0]; m.HostCPUMean == nil || *m.HostCPUMean != 50 || m.GPUUtilMean != nil || m.GPUMemPeakBytes != nil {
		t.Errorf("whole window: host_cpu_mean %v, gpu_util_mean %v", val(m.HostCPUMean), val(m.GPUUtilMean))
	}
	if m := r[0]; m.TelemetryNote != "" {
		t.Errorf("whole window: note %q", m.TelemetryNote)
	}
	// One sample, or none: not observed, and said so.
	if m := r[1]; m.HostCPUMean != nil || m.TelemetryNote != TelemetryNotObserved {
		t.Errorf("last-sample window: host_cpu_mean %v, note %q", val(m.HostCPUMean), m.TelemetryNote)
	}
	if m := r[2]; m.HostCPUMean != nil || m.GPUUtilMean != nil || m.GPUUtilMax != nil || m.GPUMemPeakBytes != nil || m.GPUPowerPeakW != nil ||
		m.TelemetryNote != TelemetryNotObserved {
		t.Errorf("window without samples: %+v", m)
	}
	// Repeats 2 and 3 not observed, repeat 1 observed: the median is
	// repeat 1's, with no note.
	if med := cl.Targets[0].Levels[0].Median; med.HostCPUMean == nil || *med.HostCPUMean != 50 || med.TelemetryNote != "" {
		t.Errorf("median: host_cpu_mean %v, note %q", val(med.HostCPUMean), med.TelemetryNote)
	}
	// Without any sample in the run (no sampler) nothing is said.
	cl, _ = Compute(run, recs, WithTelemetry(Telemetry{}))
	if m := cl.Targets[0].Levels[0].Repeats[2]; m.TelemetryNote != "" {
		t.Errorf("unsampled run: note %q", m.TelemetryNote)
	}
}

// A window of 2 ms between 200 ms samples: the Recorder's edge samples
// (steps.jsonl sample_start_ns, sample_end_ns), taken just outside the
// first start and the last end, are its samples.
func TestTelemetryEdgeSamples(t *testing.T) {
	const ms = int64(1e6)
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Repeats: 1}, Targets: []schemas.Target{{Name: "a", GPUs: []int{0, 1}}}}
	recs := []schemas.Record{{Target: "a", Concurrency: 1, Repeat: 1, Phase: schemas.PhaseMeasure, StartNs: 300 * ms, EndNs: 302 * ms, OK: true}}
	gs := func(tNs int64, gpu int, util, mem, pow float64) schemas.GPUSample {
		return schemas.GPUSample{TNs: tNs, GPU: gpu, UtilPct: f64(util), MemUsedBytes: u64(uint64(mem)), PowerW: f64(pow)}
	}
	start, end := 300*ms-5000, 302*ms+7000
	tel := Telemetry{
		Host: []schemas.HostSample{{TNs: 200 * ms, CPUPct: f64(90)}, {TNs: start, CPUPct: f64(10)}, {TNs: end, CPUPct: f64(20)}, {TNs: 400 * ms, CPUPct: f64(90)}},
		GPU: []schemas.GPUSample{gs(200*ms, 0, 99, 99, 999), gs(200*ms, 1, 99, 99, 999),
			gs(start, 0, 40, 10, 300), gs(start, 1, 60, 30, 100), gs(end, 0, 50, 20, 350), gs(end, 1, 70, 5, 90),
			gs(400*ms, 0, 99, 99, 999), gs(400*ms, 1, 99, 99, 999)},
		Steps: []schemas.StepTelemetry{{Target: "a", Concurrency: 1, Repeat: 1, StartNs: 300 * ms, EndNs: 302 * ms, SampleStartNs: &start, SampleEndNs: &end}},
	}
	cl, err := Compute(run, recs, WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	m := cl.Targets[0].Levels[0].Repeats[0]
	// Sums per instant: memory 40 then 25, power 400 then 440; each GPU's
	// own peaks: GPU 0 20 B, 350 W; GPU 1 30 B, 100 W.
	if m.TelemetryNote != "" || val(m.GPUUtilMean) != 55.0 || val(m.GPUUtilMax) != 70.0 || val(m.GPUMemPeakBytes) != 40.0 ||
		val(m.GPUPowerPeakW) != 440.0 || val(m.HostCPUMean) != 15.0 || len(m.GPUPeaks) != 2 ||
		val(m.GPUPeaks[0].MemPeakBytes) != 20.0 || val(m.GPUPeaks[0].PowerPeakW) != 350.0 ||
		val(m.GPUPeaks[1].MemPeakBytes) != 30.0 || val(m.GPUPeaks[1].PowerPeakW) != 100.0 {
		b, _ := json.Marshal(m)
		t.Errorf("edge-sampled window: %s", b)
	}
	// The same window without the edge samples: not observed.
	tel.Steps[0].SampleStartNs, tel.Steps[0].SampleEndNs = nil, nil
	cl, _ = Compute(run, recs, WithTelemetry(tel))
	if m := cl.Targets[0].Levels[0].Repeats[0]; m.TelemetryNote != TelemetryNotObserved || m.GPUPowerPeakW != nil || m.GPUPeaks != nil {
		t.Errorf("without edge samples: %+v", m)
	}
}

func TestCacheDelta(t *testing.T) {
	before := map[string]float64{engine.VLLMMMCacheHits: 3, engine.VLLMPrefixCacheHits: 160, engine.VLLMMMCacheQueries: 100}
	after := map[string]float64{engine.VLLMMMCacheHits: 10, engine.VLLMPrefixCacheHits: 900, engine.VLLMMMCacheQueries: 300}
	// The multimodal counter before the prefix one; queries never count.
	if c, d, err := CacheDelta(before, after); err != nil || c != engine.VLLMMMCacheHits || d != 7 {
		t.Errorf("vllm: %s %v, %v", c, d, err)
	}
	sg := map[string]float64{engine.SGLangCachedTokens: 5}
	if c, d, err := CacheDelta(sg, sg); err != nil || c != engine.SGLangCachedTokens || d != 0 {
		t.Errorf("sglang unchanged: %s %v, %v", c, d, err)
	}
	// Went down: the server restarted; the prefix counter is not tried.
	var re *CounterResetError
	if c, d, err := CacheDelta(after, before); !errors.As(err, &re) || re.Counter != engine.VLLMMMCacheHits || re.Before != 10 || re.After != 3 ||
		c != engine.VLLMMMCacheHits || d != 0 || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("reset: %s %v, %v", c, d, err)
	}
	q := []map[string]float64{{engine.VLLMMMCacheQueries: 1}, {engine.VLLMMMCacheQueries: 9}}
	if _, _, err := CacheDelta(q[0], q[1]); err != ErrNoCacheCounter {
		t.Errorf("queries only: %v", err)
	}
	// Present on one side only: not a delta.
	if _, _, err := CacheDelta(map[string]float64{engine.VLLMMMCacheHits: 1}, map[string]float64{engine.VLLMPrefixCacheHits: 2}); err != ErrNoCacheCounter {
		t.Errorf("different counters before and after: %v", err)
	}
	// A scrape against itself is 0 hits or no counter, never a reset.
	for _, m := range []map[string]float64{before, after, sg, q[0], nil} {
		if _, d, err := CacheDelta(m, m); (err != nil && err != ErrNoCacheCounter) || d != 0 {
			t.Errorf("%v against itself: %v, %v", m, d, err)
		}
	}
}

// gpu_peaks over repeats: GPU by GPU, field by field, like every optional
// field (a repeat without the value is left out).
func TestSummarizeGPUPeaks(t *testing.T) {
	reps := []schemas.Metrics{
		{GPUPeaks: []schemas.GPUPeak{{GPU: 3, MemPeakBytes: f64(30), PowerPeakW: f64(300)}, {GPU: 1, MemPeakBytes: f64(10), PowerPeakW: f64(100)}}},
		{GPUPeaks: []schemas.GPUPeak{{GPU: 3, MemPeakBytes: f64(34), PowerPeakW: f64(310)}, {GPU: 1, MemPeakBytes: f64(12)}}},
		{TelemetryNote: TelemetryNotObserved},
	}
	med, lo, hi := summarize(reps)
	if len(med.GPUPeaks) != 2 || med.GPUPeaks[0].GPU != 3 || val(med.GPUPeaks[0].MemPeakBytes) != 32.0 || val(med.GPUPeaks[0].PowerPeakW) != 305.0 ||
		val(med.GPUPeaks[1].PowerPeakW) != 100.0 || val(med.GPUPeaks[1].MemPeakBytes) != 11.0 ||
		val(lo.GPUPeaks[0].MemPeakBytes) != 30.0 || val(hi.GPUPeaks[0].PowerPeakW) != 310.0 || med.TelemetryNote != "" {
		b, _ := json.Marshal([]schemas.Metrics{med, lo, hi})
		t.Errorf("summary: %s", b)
	}
}

// cache_hits names its counter, and what a unit of it is comes from the
// engine row: the multimodal counter counts inputs answered from a
// cache, SGLang's only counter counts prompt tokens reused.
func TestCacheHitsAnswered(t *testing.T) {
	for _, tc := range []struct {
		counter         string
		answered, known bool
	}{
		{engine.VLLMMMCacheHits, true, true},
		{engine.VLLMPrefixCacheHits, false, true},
		{engine.SGLangCachedTokens, false, true},
		{"", false, false},
	} {
		if a, k := CacheHitsAnswered(schemas.Metrics{CacheHitsCounter: tc.counter}); a != tc.answered || k != tc.known {
			t.Errorf("%q: answered %v known %v, want %v %v", tc.counter, a, k, tc.answered, tc.known)
		}
	}
	tel := &Telemetry{Steps: []schemas.StepTelemetry{{Target: "a", Concurrency: 1, Repeat: 1,
		CacheMeasure: map[string]float64{engine.SGLangCachedTokens: 5}, CacheAfter: map[string]float64{engine.SGLangCachedTokens: 45}}}}
	var m schemas.Metrics
	applyTelemetry(&m, tel, window{target: "a", concurrency: 1, repeat: 1})
	if m.CacheHits == nil || *m.CacheHits != 40 || m.CacheHitsCounter != engine.SGLangCachedTokens {
		t.Errorf("applyTelemetry: cache_hits %v counter %q", m.CacheHits, m.CacheHitsCounter)
	}
}
