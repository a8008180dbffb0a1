package peer

import (
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	r := &Report{Format: "seedtts", Source: "r\x1b.json", Definitions: "benchmark_asr_seedtts.py", Unverifiable: []string{"the audio sent"}}
	r.add(Group{Scope: "conc 1 rep 1", Source: "conc1_rep1.jsonl", Figures: []Figure{
		{Name: "rtfx", Status: Held, Published: 4.0, Recomputed: 4.0},
		{Name: "corpus_wer", Status: Broken, Published: 0.1, Recomputed: 0.5, Reason: notFollow + "\n  (two lines)"},
		{Name: "latency_p95_s", Status: NotObserved, Reason: "no latencies"},
	}})
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(s, "\x1b", `\x1b`) }
	if err := r.WriteText(&b, esc); err != nil {
		t.Fatal(err)
	}
	want := "seedtts result r\\x1b.json, checked with the peer's definitions: benchmark_asr_seedtts.py\n" +
		"BROKEN        conc 1 rep 1 (conc1_rep1.jsonl): 1 held, 1 not observed, 1 broken\n" +
		"        BROKEN corpus_wer: does not follow from the raw data (two lines) (published 0.1, recomputed 0.5)\n" +
		"        NOT OBSERVED latency_p95_s: no latencies\n" +
		"cannot be checked from this format:\n" +
		"  - the audio sent\n" +
		"1 held, 1 not observed, 1 broken: r\\x1b.json does NOT follow from its raw data\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}

	// A group where everything checked held, and one figure could not be
	// observed, is headed HELD; the figure keeps its own word.
	r = &Report{Format: "vllm-bench", Source: "b.json", Definitions: "vllm bench serve"}
	r.add(Group{Scope: "result", Figures: []Figure{
		{Name: "completed", Status: Held, Published: 3, Recomputed: 3},
		{Name: "duration", Status: NotObserved, Reason: "the client's own clock"},
	}})
	b.Reset()
	if err := r.WriteText(&b, esc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nHELD          result: 1 held, 1 not observed, 0 broken\n        NOT OBSERVED duration: the client's own clock\n") {
		t.Errorf("got:\n%s", b.String())
	}
}
