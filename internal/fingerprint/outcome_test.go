package fingerprint

import (
	"reflect"
	"testing"
)

// TestOutcomeKnobs: the settings that change outcomes are read from a
// launch command where it shows them (environment before the program,
// docker -e, flags with or without a value, SGLang-Omni's factory-arg
// prefixes), and nothing else is.
func TestOutcomeKnobs(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want [][3]string // engine, name, value
	}{
		{"VLLM_SKIP_MODEL_NAME_VALIDATION=1 VLLM_MAX_AUDIO_CLIP_FILESIZE_MB=25 vllm serve Qwen/Qwen3-ASR-1.7B --enable-server-load-tracking --max-num-seqs 64",
			[][3]string{{"vllm", "VLLM_SKIP_MODEL_NAME_VALIDATION", "1"}, {"vllm", "VLLM_MAX_AUDIO_CLIP_FILESIZE_MB", "25"}, {"vllm", "--enable-server-load-tracking", ""}}},
		{"docker run -e VLLM_MAX_AUDIO_DECODE_DURATION_S=600 vllm/vllm-openai --max-num-queued-reqs=16",
			[][3]string{{"vllm", "VLLM_MAX_AUDIO_DECODE_DURATION_S", "600"}, {"vllm", "--max-num-queued-reqs", "16"}}},
		{"sgl-omni serve --model-path Qwen/Qwen3-ASR-1.7B --stages.asr.factory_args.pre_lm_cache_max_entries=0 --stages.asr.factory_args.prefill_coalesce_wait_ms 10 --max_queued_requests 32",
			[][3]string{{"sglang-omni", "--stages.asr.factory_args.pre_lm_cache_max_entries", "0"}, {"sglang-omni", "--stages.asr.factory_args.prefill_coalesce_wait_ms", "10"}, {"sglang-omni", "--max_queued_requests", "32"}}},
		{"vllm serve m --max-num-seqs 64 --dtype bfloat16", nil},
	} {
		var got [][3]string
		for _, k := range OutcomeKnobs(tc.cmd) {
			if k.Effect == "" || k.Source == "" {
				t.Errorf("%s: no effect or source", k.Name)
			}
			got = append(got, [3]string{k.Engine, k.Name, k.Value})
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.cmd, got, tc.want)
		}
	}
}
