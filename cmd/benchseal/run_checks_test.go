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

// TestSummaryShortNamesRate: a short open-loop step is named by its
// offered rate, not its level's number (issue 36), a closed loop's by C.
func TestSummaryShortNamesRate(t *testing.T) {
	open := bench.TargetSummary{Target: "a", Steps: 2, Requests: 30, Succeeded: 30,
		Short: []bench.StepResult{{Step: bench.Step{Target: "a", Level: 1, Concurrency: 2, Rate: 150, Repeat: 1}, Requests: 10, Planned: 20}}}
	if got := summaryLine(open); !strings.Contains(got, "short: 150 req/s r=1 10 of 20") || strings.Contains(got, "c=2") {
		t.Errorf("open loop: %q", got)
	}
	closed := open
	closed.Short = []bench.StepResult{{Step: bench.Step{Target: "a", Concurrency: 16, Repeat: 1}, Requests: 10, Planned: 20}}
	if got := summaryLine(closed); !strings.Contains(got, "short: c=16 r=1 10 of 20") {
		t.Errorf("closed loop: %q", got)
	}
}
