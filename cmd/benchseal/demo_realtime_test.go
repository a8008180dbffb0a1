package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
)

// TestDemoRealtime: `benchseal demo --task realtime` streams sessions to
// both simulated engines, each in its own protocol (picked from the
// engine its /v1/models names): the bundle verifies, the claims hold the
// realtime figures per level (first partial and finalisation lag
// everywhere, revisions on SGLang-Omni's re-decodes only), run.json seals
// the streaming rule, and the report draws the realtime table and chart
// and speaks of recognising, not of HTTP answers.
func TestDemoRealtime(t *testing.T) {
	requireE2E(t)
	out, _, _, rj, cl := demoOf(t, task.Realtime.Name())
	if rj.Protocol.Task != task.Realtime.Name() || rj.Protocol.Realtime == nil || rj.Protocol.Realtime.Speed != 4 || len(rj.Targets) != len(demo.RealtimeEngines) {
		t.Fatalf("run.json: task %q, realtime %+v, targets %+v", rj.Protocol.Task, rj.Protocol.Realtime, rj.Targets)
	}
	want := map[string]string{"vllm": string(engine.RealtimeDeltas), "sglang-omni": string(engine.RealtimeSegments)}
	for _, tg := range rj.Targets {
		if got := tg.RequestFields[task.FieldProtocol]; got != want[tg.Name] {
			t.Errorf("target %s: protocol %q, want %q", tg.Name, got, want[tg.Name])
		}
	}
	for _, tc := range cl.Targets {
		for _, l := range tc.Levels {
			m := l.Median
			if m.Succeeded == 0 || m.Quality == nil || m.Figure(task.FigFirstPartialP50) == nil || m.Figure(task.FigFinalLagP50) == nil || m.Figure(task.FigChunkLateP99) == nil {
				t.Errorf("%s c=%d: realtime figures missing: %+v", tc.Target, l.Concurrency, m)
				continue
			}
			if rev := *m.Figure(task.FigRevisions); (rev > 0) != (tc.Target == "sglang-omni") {
				t.Errorf("%s c=%d: revisions %v", tc.Target, l.Concurrency, rev)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Realtime speech recognition benchmark: ", "## Realtime sessions", "| first partial p50 ms |", "| final lag p50 ms |",
		"![Time to first partial p50 (solid) and finalisation lag p50 (dashed)", "**What a realtime bundle cannot show:**"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report", "task_figure.svg")); err != nil {
		t.Error(err)
	}
	for _, other := range []string{"transcribed", "HTTP 200", "Speech-to-text"} {
		if bytes.Contains(md, []byte(other)) {
			t.Errorf("the realtime report speaks of %q", other)
		}
	}
}
