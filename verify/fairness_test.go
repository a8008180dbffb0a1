package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func writeJSONFile(tb testing.TB, dir, name string, v any) {
	tb.Helper()
	b, err := json.Marshal(v)
	must(tb, err)
	must(tb, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
	must(tb, os.WriteFile(filepath.Join(dir, name), b, 0o644))
}

// countedCache sets every repeat's cache_hits in claims.json to 0, as a
// run whose servers expose a cache counter records it.
func countedCache(t *testing.T, dir string) {
	var cl schemas.Claims
	b, err := os.ReadFile(filepath.Join(dir, "claims.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &cl))
	zero := 0.0
	for i := range cl.Targets {
		for j := range cl.Targets[i].Levels {
			for r := range cl.Targets[i].Levels[j].Repeats {
				cl.Targets[i].Levels[j].Repeats[r].CacheHits = &zero
			}
		}
	}
	writeJSONFile(t, dir, "claims.json", cl)
}

func TestFairness(t *testing.T) {
	gpus := func(names ...string) schemas.GPUInfo {
		g := schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, DriverVersion: "570.1", GPUs: []schemas.GPUDevice{}}
		for i, n := range names {
			g.GPUs = append(g.GPUs, schemas.GPUDevice{Index: i, Name: n, UUID: "GPU-" + n, Processes: []schemas.GPUProcess{}})
		}
		return g
	}
	vllm := `{"vllm_config":{"scheduler_config":{"max_num_seqs":64},"cache_config":{"gpu_memory_utilization":0.9,"enable_prefix_caching":false},"model_config":{"dtype":"torch.bfloat16"}},"vllm_env":{},"system_env":{}}`
	vllmMetrics := "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",enable_prefix_caching=\"False\",engine=\"0\",gpu_memory_utilization=\"0.9\"} 1.0\n"
	same := `{"max_running_requests":64,"mem_fraction_static":0.9,"dtype":"bfloat16","disable_radix_cache":true}`
	for _, tc := range []struct {
		name         string
		gpu          schemas.GPUInfo
		a, b         schemas.Probe // a's and b's probes before
		aAfter       *schemas.Probe
		launchB      string
		countedCache bool
		want         verify.Status
		text         []string
	}{
		{name: "same", gpu: gpus("NVIDIA H200", "NVIDIA H200"), a: schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: vllm},
			b: schemas.Probe{Path: "/get_server_info", Status: 200, Body: same}, countedCache: true, want: verify.Pass},
		{name: "knob-differs", gpu: gpus("NVIDIA H200"), a: schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: vllm},
			b:            schemas.Probe{Path: "/get_server_info", Status: 200, Body: `{"max_running_requests":128,"mem_fraction_static":0.9,"dtype":"bfloat16","disable_radix_cache":false}`},
			countedCache: true, want: verify.Warn,
			text: []string{"max running requests differs: a 64 (served: /server_info?config_format=json vllm_config.scheduler_config.max_num_seqs); b 128 (served: /get_server_info max_running_requests)"}},
		{name: "gpu-differs", gpu: gpus("NVIDIA H200", "NVIDIA A100-SXM4-80GB"), a: schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: vllm},
			b: schemas.Probe{Path: "/get_server_info", Status: 200, Body: same}, countedCache: true, want: verify.Fail, text: []string{"different GPUs"}},
		// vLLM without dev mode next to SGLang-Omni: what neither exposes is
		// not observed, a WARN naming how to expose it, never a pass.
		{name: "not-observed", gpu: gpus("NVIDIA H200"), a: schemas.Probe{Path: "/metrics", Status: 200, Body: vllmMetrics},
			b: schemas.Probe{Path: "/health", Status: 200, Body: `{"status":"healthy"}`}, want: verify.Warn,
			text: []string{"max running requests: not observed on any target (a, b); expose it: start vLLM with VLLM_SERVER_DEV_MODE=1",
				"GPU memory fraction: not observed on b, so it cannot be compared (a 0.9 (served: /metrics vllm:cache_config_info gpu_memory_utilization))",
				"cache hits not observable for a: ", "cache hits not observable for b: "}},
		// A launch command declares what SGLang-Omni does not serve; the
		// comparison says which source each side used.
		{name: "declared", gpu: gpus("NVIDIA H200"), a: schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: vllm},
			b: schemas.Probe{Path: "/health", Status: 200, Body: `{"status":"healthy"}`}, countedCache: true,
			launchB: "sgl-omni serve --model-path m --max-running-requests 64 --mem-fraction-static 0.9 --dtype bfloat16 --disable-radix-cache",
			want:    verify.Pass},
		// Probes after the sweep count too, not only whichever file sorts
		// first.
		{name: "changed-during-run", gpu: gpus("NVIDIA H200"), a: schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: vllm},
			aAfter: &schemas.Probe{Path: "/server_info?config_format=json", Status: 200, Body: strings.Replace(vllm, `"max_num_seqs":64`, `"max_num_seqs":128`, 1)},
			b:      schemas.Probe{Path: "/get_server_info", Status: 200, Body: same}, countedCache: true, want: verify.Warn,
			text: []string{"max running requests of a changed during the run: 64 before, 128 after"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := damagedRun(t, func(dir string) {
				writeJSONFile(t, dir, "env/gpu.json", tc.gpu)
				writeJSONFile(t, dir, "servers/a/probes-before.json", captureOf("a", "before", tc.a))
				writeJSONFile(t, dir, "servers/b/probes-before.json", captureOf("b", "before", tc.b))
				if tc.aAfter != nil {
					writeJSONFile(t, dir, "servers/a/probes-after.json", captureOf("a", "after", *tc.aAfter))
				}
				if tc.countedCache {
					countedCache(t, dir)
				}
				var run schemas.Run
				b, _ := os.ReadFile(filepath.Join(dir, "run.json"))
				must(t, json.Unmarshal(b, &run))
				// Each target names its GPU (--gpu), which was sampled: only
				// then is its GPU model observed.
				b1 := min(1, len(tc.gpu.GPUs)-1)
				run.Targets[0].GPUs, run.Targets[1].GPUs = []int{0}, []int{b1}
				if len(run.Command) > 0 {
					run.Command = append(run.Command, "--gpu", "a=0", "--gpu", "b="+strconv.Itoa(b1))
					var client map[string]any
					if b, err := os.ReadFile(filepath.Join(dir, "env", "client.json")); err == nil {
						must(t, json.Unmarshal(b, &client))
						client["command"] = run.Command
						writeJSONFile(t, dir, "env/client.json", client)
					}
				}
				var samples []byte
				for _, g := range tc.gpu.GPUs {
					line, _ := json.Marshal(schemas.GPUSample{GPU: g.Index})
					samples = append(append(samples, line...), '\n')
				}
				must(t, os.MkdirAll(filepath.Join(dir, "telemetry"), 0o755))
				must(t, os.WriteFile(filepath.Join(dir, "telemetry", "gpu.jsonl"), samples, 0o644))
				run.Targets[1].LaunchCommand = tc.launchB
				writeJSONFile(t, dir, "run.json", run)
			})
			rep, err := verify.Dir(context.Background(), dir, verify.Options{})
			must(t, err)
			c := rep.Check(verify.CheckFairness)
			if c.Status != tc.want {
				t.Fatalf("fairness %s, want %s: %s %+v", c.Status, tc.want, c.Summary, c.Findings)
			}
			if s := rep.Check(verify.CheckSchemas).Status; s != verify.Pass {
				t.Errorf("schemas %s: %+v", s, rep.Check(verify.CheckSchemas).Findings)
			}
			for _, text := range tc.text {
				found := false
				for _, f := range c.Findings {
					found = found || strings.Contains(f.Reason, text)
				}
				if !found {
					t.Errorf("no finding with %q: %+v", text, c.Findings)
				}
			}
			// A knob compared across targets is filed under servers/, not
			// under the first target's folder as if it were a's alone.
			for _, f := range c.Findings {
				if (strings.Contains(f.Reason, " differs: ") || strings.Contains(f.Reason, ": not observed on ")) && f.Path != "servers/" {
					t.Errorf("cross-target finding filed under %q, want servers/: %s", f.Path, f.Reason)
				}
			}
			if tc.want == verify.Pass && !strings.Contains(c.Summary, "same server knobs") {
				t.Errorf("summary %q", c.Summary)
			}
		})
	}
}

func captureOf(target, when string, p schemas.Probe) schemas.ServerCapture {
	return schemas.ServerCapture{Schema: schemas.ProbeSchema, Target: target, When: when, At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		BaseURL: "http://127.0.0.1:1", Probes: []schemas.Probe{p}}
}
