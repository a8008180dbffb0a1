package main

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
)

// TestStoppedHintAudioRefused: warm-ups the server refused for the audio
// itself (vLLM's upload limit) are named a corpus problem, with the
// limits to raise; another 400 keeps the hint about the request's fields.
func TestStoppedHintAudioRefused(t *testing.T) {
	for _, tc := range []struct{ why, want string }{
		{`HTTP 400: {"error":{"message":"Maximum file size exceeded","type":"BadRequestError","param":"audio_filesize_mb","code":400}}`,
			"the server (vllm) refused the audio itself: a corpus problem, not a model failure"},
		{`HTTP 400: {"error":{"message":"Currently do not support verbose_json for m"}}`, "check --model, --form and --response-format"},
	} {
		got := stoppedHint(&bench.TargetStoppedError{WarmupFailed: map[string]string{"a": tc.why}}, "out")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q", tc.why, got, tc.want)
		}
	}
}
