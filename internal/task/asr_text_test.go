package task

import "testing"

// TestScoredTextPrefixOnlyIsEmpty: an answer that is only Qwen3-ASR's raw
// prefix has no transcript, so the runner records it as empty_text.
func TestScoredTextPrefixOnlyIsEmpty(t *testing.T) {
	for in, want := range map[string]string{
		"language English<asr_text>":               "",
		"language None<asr_text></asr_text>":       "",
		" language English<asr_text>hello world\n": "hello world",
		"language English<asr_text>hi</asr_text>":  "hi",
		"language is hard":                         "language is hard",
		"hello":                                    "hello",
	} {
		if got := ScoredText(in); got != want {
			t.Errorf("ScoredText(%q) = %q, want %q", in, got, want)
		}
	}
}
