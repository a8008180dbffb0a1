package task

import "strings"

// ScoredText is what scoring sees of a transcript: Qwen3-ASR's raw output
// prefix "language English<asr_text>" (left in by vLLM streaming) and a
// closing "</asr_text>" are removed; the record keeps the text as returned.
// The runner writes it as text_scored and verify re-derives it from text, so
// it lives here, below both.
func ScoredText(text string) string {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "language ") {
		if _, after, ok := strings.Cut(s, "<asr_text>"); ok {
			s = after
		}
	}
	s = strings.TrimSuffix(s, "</asr_text>")
	return strings.TrimSpace(s)
}
