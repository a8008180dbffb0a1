package fingerprint_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
)

// knobLine is a Knob as one comparable line.
func knobLine(k fingerprint.Knob) string {
	return fmt.Sprintf("%s=%s (%s: %s)", k.Name, k.Value, k.Source, k.From)
}

// TestKnobsFromPersonas: the knobs are read where each engine keeps them.
// vLLM without dev mode: only vllm:cache_config_info's labels in /metrics;
// with dev mode: the nested JSON of /server_info?config_format=json;
// SGLang-Omni: nothing served, so only the launch command says anything.
// The simulator publishes its own max running requests in its /v1/models
// (benchseal_sim_settings), after the engine's own self-description.
func TestKnobsFromPersonas(t *testing.T) {
	const sglangLaunch = `sgl-omni serve --model-path Qwen/Qwen3-ASR-1.7B --max-running-requests 8 \
  --mem-fraction-static=0.88 --disable-radix-cache`
	for _, tc := range []struct {
		name   string
		cfg    sim.Config
		launch string
		want   []string
	}{
		{"vllm", sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 16, Cache: true}, "", []string{
			"max running requests=16 (served: /v1/models benchseal_sim_settings.max_running (simulator settings))",
			"GPU memory fraction=0.9 (served: /metrics vllm:cache_config_info gpu_memory_utilization)",
			"dtype= (absent: )",
			"prefix caching=true (served: /metrics vllm:cache_config_info enable_prefix_caching)"}},
		{"vllm-omni", sim.Config{Persona: sim.PersonaVLLMOmni, Cache: true}, "", []string{
			"max running requests=unlimited (served: /v1/models benchseal_sim_settings.max_running (simulator settings))",
			"GPU memory fraction=0.9 (served: /metrics vllm:cache_config_info gpu_memory_utilization)",
			"dtype= (absent: )",
			"prefix caching=true (served: /metrics vllm:cache_config_info enable_prefix_caching)"}},
		{"vllm dev mode", sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 16, DevMode: true}, "vllm serve Qwen/Qwen3-ASR-1.7B --max-num-seqs 99", []string{
			"max running requests=16 (served: /server_info?config_format=json vllm_config.scheduler_config.max_num_seqs)",
			"GPU memory fraction=0.9 (served: /server_info?config_format=json vllm_config.cache_config.gpu_memory_utilization)",
			"dtype=bfloat16 (served: /server_info?config_format=json vllm_config.model_config.dtype)",
			"prefix caching=false (served: /server_info?config_format=json vllm_config.cache_config.enable_prefix_caching)"}},
		{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, MaxRunning: 8}, "", []string{
			"max running requests=8 (served: /v1/models benchseal_sim_settings.max_running (simulator settings))", "GPU memory fraction= (absent: )", "dtype= (absent: )", "prefix caching= (absent: )"}},
		{"sglang-omni launched", sim.Config{Persona: sim.PersonaSGLangOmni, MaxRunning: 8}, sglangLaunch, []string{
			"max running requests=8 (served: /v1/models benchseal_sim_settings.max_running (simulator settings))",
			"GPU memory fraction=0.88 (declared: launch command --mem-fraction-static)",
			"dtype= (absent: )",
			"prefix caching=false (declared: launch command --disable-radix-cache)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c := fingerprint.Capture(context.Background(), srv.Client(), "a", srv.URL, nil, "before")
			got := fingerprint.Knobs(c.Probes, tc.launch)
			if len(got) != len(tc.want) {
				t.Fatalf("%d knobs, want %d", len(got), len(tc.want))
			}
			for i, k := range got {
				if l := knobLine(k); l != tc.want[i] {
					t.Errorf("got  %s\nwant %s", l, tc.want[i])
				}
			}
		})
	}
}

// TestDeclaredKnobs: both engines' known flags, in both spellings, quoted,
// negated, the last one winning.
func TestDeclaredKnobs(t *testing.T) {
	for cmd, want := range map[string]map[string]string{
		`vllm serve "Qwen/Qwen3-ASR-1.7B" --max-num-seqs=64 --gpu-memory-utilization 0.85 --dtype 'bfloat16' --no-enable-prefix-caching --max-model-len 4096`: {
			fingerprint.KnobMaxRunning: "64", fingerprint.KnobGPUMemory: "0.85", fingerprint.KnobDType: "bfloat16", fingerprint.KnobPrefixCaching: "false"},
		`python -m vllm.entrypoints.openai.api_server --enable-prefix-caching --max-num-seqs 8 --max-num-seqs 16`: {
			fingerprint.KnobMaxRunning: "16", fingerprint.KnobPrefixCaching: "true"},
		`python -m sglang.launch_server --model-path m --max-running-requests 32 --mem-fraction-static 0.8`: {
			fingerprint.KnobMaxRunning: "32", fingerprint.KnobGPUMemory: "0.8"},
		`sgl-omni serve --model-path m`: {},
	} {
		got := fingerprint.DeclaredKnobs(cmd)
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", cmd, got, want)
		}
		for name, v := range want {
			if got[name].Value != v || got[name].Source != fingerprint.KnobDeclared {
				t.Errorf("%s: %s = %+v, want %s", cmd, name, got[name], v)
			}
		}
	}
}
