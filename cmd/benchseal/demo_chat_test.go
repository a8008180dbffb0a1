package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/internal/task"
)

// TestDemoChatAudio: `benchseal demo --task chat-audio` runs the whole
// workflow against the simulated Qwen3-Omni chat servers (vLLM-Omni's
// input_audio part, SGLang-Omni's audios list): its bundle verifies, its
// claims hold chat-audio's figures (TTFT, ITL, output tokens per second)
// and a WER, and its report speaks of answers, never of transcribing.
func TestDemoChatAudio(t *testing.T) {
	requireE2E(t)
	out, _, _, rj, cl := demoOf(t, task.ChatAudio.Name())
	if rj.Protocol.Task != task.ChatAudio.Name() || len(rj.Targets) != len(demo.ChatEngines) || rj.Targets[1].RequestFields["audio_part"] != task.ChatAudios {
		t.Fatalf("run.json: task %q, targets %+v", rj.Protocol.Task, rj.Targets)
	}
	for _, tc := range cl.Targets {
		for _, l := range tc.Levels {
			m := l.Median
			if m.Succeeded == 0 || m.Quality == nil || m.Figure(task.FigTTFTP95) == nil || m.Figure(task.FigITLP50) == nil || m.Figure(task.FigOutputTokPS) == nil {
				t.Errorf("%s c=%d: chat-audio figures missing: %+v", tc.Target, l.Concurrency, m)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Audio chat benchmark: ", "## Audio chat", "| TTFT p50 ms |", "![Time to first token p50", "**What a chat-audio bundle cannot show:** that an answer is right", demo.ChatModel} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	// The RTFx table is report.html's, in the task's words.
	page, err := os.ReadFile(filepath.Join(out, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("seconds of audio answered per second")) || bytes.Contains(md, []byte("seconds of audio answered per second")) {
		t.Error("report.html, and it alone, should have the RTFx table in the task's words")
	}
	for _, asr := range []string{"transcribed", "transcribing", "Speech-to-text"} {
		if bytes.Contains(page, []byte(asr)) {
			t.Errorf("the chat-audio report.html speaks of %q", asr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report", "task_figure.svg")); err != nil {
		t.Error(err)
	}
	for _, asr := range []string{"transcribed", "transcribing", "Speech-to-text"} {
		if bytes.Contains(md, []byte(asr)) {
			t.Errorf("the chat-audio report speaks of %q", asr)
		}
	}
}
