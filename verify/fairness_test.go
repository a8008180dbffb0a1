package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

func capture(target, path, body string) schemas.ServerCapture {
	return schemas.ServerCapture{Schema: schemas.ProbeSchema, Target: target, When: "before", At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		BaseURL: "http://127.0.0.1:1", Probes: []schemas.Probe{{Path: path, Status: 200, Body: body}}}
}

func TestFairness(t *testing.T) {
	gpus := func(names ...string) schemas.GPUInfo {
		g := schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, DriverVersion: "570.1", GPUs: []schemas.GPUDevice{}}
		for i, n := range names {
			g.GPUs = append(g.GPUs, schemas.GPUDevice{Index: i, Name: n, UUID: "GPU-" + n, Processes: []schemas.GPUProcess{}})
		}
		return g
	}
	vllm := `{"max_num_seqs":64,"gpu_memory_utilization":0.9,"dtype":"bfloat16","enable_prefix_caching":false}`
	for _, tc := range []struct {
		name   string
		gpu    schemas.GPUInfo
		sglang string
		want   verify.Status
		text   string
	}{
		{"same", gpus("NVIDIA H200", "NVIDIA H200"), `{"max_running_requests":64,"mem_fraction_static":0.9,"dtype":"bfloat16","disable_radix_cache":true}`, verify.Pass, ""},
		{"knob-differs", gpus("NVIDIA H200"), `{"max_running_requests":128,"mem_fraction_static":0.9,"dtype":"bfloat16","disable_radix_cache":false}`, verify.Warn, "max running requests differs: a has 64, b has 128"},
		{"gpu-differs", gpus("NVIDIA H200", "NVIDIA A100-SXM4-80GB"), `{"max_running_requests":64,"mem_fraction_static":0.9,"dtype":"bfloat16","disable_radix_cache":true}`, verify.Fail, "different GPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := damagedRun(t, func(dir string) {
				writeJSONFile(t, dir, "env/gpu.json", tc.gpu)
				writeJSONFile(t, dir, "servers/a/probes-before.json", capture("a", "/server_info", vllm))
				writeJSONFile(t, dir, "servers/b/probes-before.json", capture("b", "/get_server_info", tc.sglang))
				if len(tc.gpu.GPUs) > 1 {
					var run schemas.Run
					b, _ := os.ReadFile(filepath.Join(dir, "run.json"))
					must(t, json.Unmarshal(b, &run))
					run.Targets[0].GPUs, run.Targets[1].GPUs = []int{0}, []int{1}
					writeJSONFile(t, dir, "run.json", run)
				}
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
			if tc.text != "" {
				found := false
				for _, f := range c.Findings {
					found = found || strings.Contains(f.Reason, tc.text)
				}
				if !found {
					t.Errorf("no finding with %q: %+v", tc.text, c.Findings)
				}
			}
		})
	}
}
