package claims

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchseal/benchseal/schemas"
)

func f64(v float64) *float64 { return &v }
func u64(v uint64) *uint64   { return &v }

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
		Host: []schemas.HostSample{{TNs: 120, CPUPct: f64(10)}, {TNs: 180, CPUPct: f64(30)}, {TNs: 110}, {TNs: 350, CPUPct: f64(70)}},
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
	want := map[string]*float64{"util mean": f64(60), "util max": f64(80), "mem peak": f64(30), "power peak": f64(150), "cpu": f64(20), "cache": f64(3)}
	got := map[string]*float64{"util mean": a.GPUUtilMean, "util max": a.GPUUtilMax, "mem peak": a.GPUMemPeakBytes,
		"power peak": a.GPUPowerPeakW, "cpu": a.HostCPUMean, "cache": a.CacheHits}
	for k, w := range want {
		if got[k] == nil || *got[k] != *w {
			t.Errorf("a %s = %v, want %v", k, got[k], *w)
		}
	}
	if a.CacheHits == nil || *cl.Targets[0].Levels[0].Median.CacheHits != 3 {
		t.Error("median cache_hits not carried")
	}
	b := cl.Targets[1].Levels[0].Repeats[0]
	if b.GPUUtilMean != nil || b.CacheHits != nil || b.HostCPUMean == nil || *b.HostCPUMean != 70 {
		t.Errorf("b: gpu %v cache %v cpu %v", b.GPUUtilMean, b.CacheHits, b.HostCPUMean)
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
