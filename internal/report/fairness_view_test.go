package report

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/verify"
)

// TestSpeechKnobNotObserved: a tts run's speech knob that no target
// declares is not observed, not a fact that differs: the fairness line
// names it (and where to set it) without "Not shown fair".
func TestSpeechKnobNotObserved(t *testing.T) {
	in := fixture()
	in.Verify = &verify.Report{Source: "evidence.tar.zst", Kind: "bundle", Pinned: true}
	in.Verify.Checks = append(in.Verify.Checks, verify.Check{ID: verify.CheckFairness, Name: "fairness", Status: verify.Warn, Findings: []verify.Finding{
		{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Reason: "initial codec chunk frames: not observed on vllm-omni, sglang-omni, so the targets' first audio cannot be compared as like with like (both engines take initial_codec_chunk_frames per request: give every target the same value in its request fields, or record the deploy config that sets it)"},
	}})
	md := mdOf(t, in)
	con := section(md, "Conclusion")
	if strings.Contains(md, "Not shown fair") || !strings.Contains(con, "**Fairness not observable:** initial codec chunk frames (request field initial\\_codec\\_chunk\\_frames) (on vllm-omni, sglang-omni); a lead may come from what was not observed.") {
		t.Errorf("the fairness line:\n%s", con)
	}
	if strings.Contains(caveatsOf(md), "codec") {
		t.Errorf("said again in the caveats:\n%s", caveatsOf(md))
	}
}
