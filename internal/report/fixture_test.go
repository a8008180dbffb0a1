package report

import (
	"math"
	"sort"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

func ptr[T any](x T) *T { return &x }

// fixture is a hand-made two-target run: 5 levels, 3 repeats, references,
// telemetry, cache counters, a few errors, a bundle and a key. Its numbers
// follow simple formulas so that a reader of the golden files can tell a
// right table from a wrong one.
func fixture() Input {
	levels := []int{1, 2, 4, 8, 16}
	run := schemas.Run{
		Schema: schemas.RunSchema,
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.3.0", GoVersion: "go1.26.8",
			BinarySHA256: "5f0c2d5c1b0e8f1a9a7c3e0d4b6f8a2c1e3d5f7a9b0c2d4e6f8a0b1c3d5e7f9a"},
		StartedAt: time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 18, 42, 7, 0, time.UTC),
		Complete:  true,
		Seed:      42,
		Protocol: schemas.Protocol{Levels: levels, Requests: []int{64, 64, 128, 256, 512}, Warmup: levels, Repeats: 3,
			Perturb: true, TimeoutS: 120, SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []schemas.Target{
			{Name: "sglang-omni", URL: "http://10.0.0.5:30000", Model: "Qwen/Qwen3-ASR-1.7B",
				RequestFields: map[string]string{"response_format": "json", "language": "en"},
				LaunchCommand: "python -m sglang.launch_server --model Qwen/Qwen3-ASR-1.7B --api-key [REDACTED]", GPUs: []int{0}},
			{Name: "vllm-omni", URL: "http://10.0.0.5:8000", Model: "Qwen/Qwen3-ASR-1.7B",
				RequestFields: map[string]string{"response_format": "json"}, GPUs: []int{0}},
		},
	}
	for i := range 20 {
		run.Corpus = append(run.Corpus, schemas.Clip{ID: "clip" + string(rune('a'+i)), Seconds: 4.5 + float64(i%5), Text: "ref"})
	}
	cl := schemas.Claims{Schema: schemas.ClaimsSchema, Scoring: &run.Scoring}
	for ti, tg := range []string{"sglang-omni", "vllm-omni"} {
		tc := schemas.TargetClaims{Target: tg}
		peak := []float64{9.5, 7.8}[ti]
		for li, c := range levels {
			lc := schemas.LevelClaims{Concurrency: c}
			for r := range 3 {
				jitter := 1 + 0.03*float64(r-1)*float64(1+li%2)
				rps := peak * float64(c) / (float64(c) + 3) * jitter
				lat := (0.25 + 0.02*float64(c)*float64(ti+1)) / jitter
				m := schemas.Metrics{
					Requests: run.Protocol.Requests[li], Succeeded: run.Protocol.Requests[li],
					WindowS: float64(run.Protocol.Requests[li]) / rps, ReqPerS: rps, RTFx: ptr(rps * 6.5),
					LatencyMeanS: ptr(lat * 1.05), LatencyP50S: ptr(lat), LatencyP90S: ptr(lat * 1.4), LatencyP95S: ptr(lat * 1.6),
					LatencyP99S: ptr(lat * 2.1), LatencyMaxS: ptr(lat * 2.5), TTFBP50S: ptr(lat * 0.9), PeakInFlight: c,
					Quality:     ptr(0.041 + 0.01*float64(ti) + 0.001*float64(r)),
					Errors:      map[string]int{},
					GPUUtilMean: ptr(math.Min(97, 20*float64(li+1)+float64(r))), GPUUtilMax: ptr(math.Min(100, 25*float64(li+1))),
					GPUMemPeakBytes: ptr(float64(70<<30) + float64(c)*(1<<28)), GPUPowerPeakW: ptr(300 + 20*float64(li)),
					HostCPUMean: ptr(5 + float64(c)/4), CacheHits: ptr(0.0),
					MeanInFlight: ptr(float64(c) * (0.95 + 0.01*float64(r))), FullConcurrencyShare: ptr(0.9 + 0.01*float64(r)),
				}
				if ti == 1 && c == 16 && r > 0 {
					m.Failed = r
					m.Succeeded -= r
					m.Errors["timeout"] = r
					if r == 2 {
						m.Errors["http"] = 1
						m.Errors["timeout"] = 1
					}
				}
				lc.Repeats = append(lc.Repeats, m)
			}
			lc.Median, lc.Min, lc.Max = summarize(lc.Repeats)
			tc.Levels = append(tc.Levels, lc)
		}
		cl.Targets = append(cl.Targets, tc)
	}
	mem := uint64(141 << 30)
	return Input{
		Run: run, Claims: cl,
		BundleSHA256:   "9d3b2f6a8c1e4d7b0a5f3e2c1d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b",
		BundleName:     "evidence.tar.zst",
		KeyFingerprint: "sha256:0b6f1c4a9e2d7f3b8a5c0e1d4f7a2b9c6e3d0f5a8b1c4e7d2a9f6b3c0e5d8a1f",
		GPU: &schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, DriverVersion: "570.86.15", CUDADriverVersion: "12.8",
			GPUs: []schemas.GPUDevice{{Index: 0, Name: "NVIDIA H200", MemoryTotalBytes: &mem}}},
		Host: &schemas.HostInfo{Schema: schemas.HostSchema, OS: "linux", Arch: "amd64", OSRelease: "Debian GNU/Linux 12 (bookworm)",
			Kernel: "6.1.0-28-amd64", CPUModel: "AMD EPYC 9654", CPUs: 192, CPUCores: 96, MemoryBytes: 1 << 40,
			LoadAvg: &[3]float64{0.42, 0.3, 0.25}},
		Servers: []schemas.ServerCapture{
			{Schema: schemas.ProbeSchema, Target: "vllm-omni", When: "before", Probes: []schemas.Probe{
				{Path: "/v1/models", Status: 200, Body: `{"object":"list","data":[{"id":"Qwen/Qwen3-ASR-1.7B","max_model_len":32768}]}`},
				{Path: "/version", Status: 200, Body: `{"version":"0.11.0"}`},
				{Path: "/server_info", Status: 404, Body: "Not Found"},
			}},
			{Schema: schemas.ProbeSchema, Target: "sglang-omni", When: "before", Probes: []schemas.Probe{
				{Path: "/v1/models", Status: 200, Body: "{\"data\":[{\"id\":\"Qwen/Qwen3-ASR-1.7B\"}]}\n"},
				{Path: "/version", Status: 0, Error: "connection refused"},
			}},
		},
	}
}

// summarize takes median, min and max field by field for what the report
// shows (internal/claims does this for real runs; the fixture only needs
// numbers with the same shape).
func summarize(reps []schemas.Metrics) (med, lo, hi schemas.Metrics) {
	pick := func(get func(*schemas.Metrics) *float64) {
		var xs []float64
		for i := range reps {
			if p := get(&reps[i]); p != nil {
				xs = append(xs, *p)
			}
		}
		if len(xs) == 0 {
			return
		}
		sort.Float64s(xs)
		*get(&lo), *get(&hi) = xs[0], xs[len(xs)-1]
		*get(&med) = xs[len(xs)/2]
	}
	optional := func(get func(*schemas.Metrics) **float64) {
		var xs []float64
		for i := range reps {
			if p := *get(&reps[i]); p != nil {
				xs = append(xs, *p)
			}
		}
		if len(xs) == 0 {
			return
		}
		sort.Float64s(xs)
		*get(&lo), *get(&hi), *get(&med) = ptr(xs[0]), ptr(xs[len(xs)-1]), ptr(xs[len(xs)/2])
	}
	pick(func(m *schemas.Metrics) *float64 { return &m.ReqPerS })
	optional(func(m *schemas.Metrics) **float64 { return &m.RTFx })
	optional(func(m *schemas.Metrics) **float64 { return &m.LatencyP50S })
	optional(func(m *schemas.Metrics) **float64 { return &m.LatencyP90S })
	optional(func(m *schemas.Metrics) **float64 { return &m.LatencyP99S })
	optional(func(m *schemas.Metrics) **float64 { return &m.Quality })
	optional(func(m *schemas.Metrics) **float64 { return &m.GPUUtilMean })
	optional(func(m *schemas.Metrics) **float64 { return &m.GPUUtilMax })
	optional(func(m *schemas.Metrics) **float64 { return &m.GPUMemPeakBytes })
	optional(func(m *schemas.Metrics) **float64 { return &m.GPUPowerPeakW })
	optional(func(m *schemas.Metrics) **float64 { return &m.HostCPUMean })
	optional(func(m *schemas.Metrics) **float64 { return &m.CacheHits })
	// An open loop's (openFixture); nil in a closed loop's.
	for _, f := range []func(m *schemas.Metrics) **float64{
		func(m *schemas.Metrics) **float64 { return &m.OfferedRate },
		func(m *schemas.Metrics) **float64 { return &m.SendRate },
		func(m *schemas.Metrics) **float64 { return &m.LatenessP50S },
		func(m *schemas.Metrics) **float64 { return &m.LatenessP99S },
		func(m *schemas.Metrics) **float64 { return &m.ArrivalLatencyP50S },
		func(m *schemas.Metrics) **float64 { return &m.ArrivalLatencyP99S },
		func(m *schemas.Metrics) **float64 { return &m.Goodput },
		func(m *schemas.Metrics) **float64 { return &m.ArrivalGrowth },
		func(m *schemas.Metrics) **float64 { return &m.BacklogGrowth },
	} {
		optional(f)
	}
	med.Requests, med.Succeeded = reps[len(reps)/2].Requests, reps[len(reps)/2].Succeeded
	return med, lo, hi
}
