package main

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
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

// TestSummarizeAttempts: a step measured again is named on stderr; a step
// whose last attempt still stalled is said loudly, with its stall share,
// and makes run fail (exit 1) instead of "ok".
func TestSummarizeAttempts(t *testing.T) {
	stall := func(share float64) *claims.PhaseStall {
		return &claims.PhaseStall{Phase: "measure", Share: share, First: "worker 0 sent seq 9 600.0 ms after its seq 7 ended (measure phase)"}
	}
	step := func(attempt int, share float64) bench.StepResult {
		return bench.StepResult{Step: bench.Step{Target: "a", Concurrency: 16, Repeat: 2, Attempt: attempt}, Stall: stall(share)}
	}
	var stderr strings.Builder
	e := &env{stderr: &stderr}
	ok := &bench.Result{Discarded: []bench.StepResult{step(1, 0.371)}}
	if err := summarizeAttempts(e, ok); err != nil {
		t.Fatalf("a step kept after a good second attempt fails the run: %v", err)
	}
	if !strings.Contains(stderr.String(), "a c=16 r=2: attempt 1 discarded and measured again (stalls 37.1 % of the measure phase's worker time") {
		t.Errorf("the re-measured step is not named:\n%s", stderr.String())
	}
	stderr.Reset()
	bad := &bench.Result{Discarded: []bench.StepResult{step(1, 0.371), step(2, 0.2)}, Stalled: []bench.StepResult{step(3, 0.165)}}
	err := summarizeAttempts(e, bad)
	if err == nil || !strings.Contains(err.Error(), "1 step(s) still stalled after 3 attempts") || !strings.Contains(err.Error(), "a c=16 r=2 (16.5 %)") {
		t.Fatalf("error %v, want the stalled step and its share", err)
	}
	if exitCode(err) != exitFailure {
		t.Errorf("exit status %d, want %d", exitCode(err), exitFailure)
	}
	if !strings.Contains(stderr.String(), "CLOSED LOOP STALLED: a c=16 r=2: the closed loop still stalled after 3 attempts") || !strings.Contains(stderr.String(), "16.5 %") {
		t.Errorf("not said loudly:\n%s", stderr.String())
	}
}
