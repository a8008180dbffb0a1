package session_test

import (
	"testing"

	"github.com/benchseal/benchseal/internal/session"
)

// A replay loses a target's server evidence when it collects none of the
// kind the sealed run holds: spans need an OTLP receiver, profiler events
// a profiler directory (given, or made for a launched server); stage times
// alone are kept by either.
func TestLostEvidence(t *testing.T) {
	s := &session.Sealed{}
	for _, n := range []string{"servers/v/otlp/export-1.binpb", "servers/v/stages/c1-r1.jsonl",
		"servers/s/events/c1-r1/events_asr_12.jsonl", "servers/j/stages/c1-r1.jsonl",
		"servers/n/probes-before.json", "records/v/c1-r1.jsonl", "servers/x/otlp/notes.txt"} {
		s.NoteEvidence(n)
	}
	if len(s.ServerEvidence) != 3 {
		t.Fatalf("ServerEvidence = %+v, want v, s and j only", s.ServerEvidence)
	}
	targets := []string{"v", "s", "j", "n"}
	lost := func(ev session.ServerEvents, launched map[string]string) []string {
		var out []string
		for _, l := range s.LostEvidence(targets, ev, launched) {
			out = append(out, l.Target)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		ev       session.ServerEvents
		launched map[string]string
		want     []string
	}{
		{"none collected", session.ServerEvents{}, nil, []string{"v", "s", "j"}},
		{"otlp only", session.ServerEvents{OTLPListen: "127.0.0.1:4317"}, nil, []string{"s"}},
		{"profiler of s", session.ServerEvents{ProfilerDirs: map[string]string{"s": "/tmp/e"}}, nil, []string{"v", "j"}},
		{"s launched", session.ServerEvents{}, map[string]string{"s": "sglang-omni ...", "j": "x"}, []string{"v"}},
	} {
		got := lost(c.ev, c.launched)
		if len(got) != len(c.want) {
			t.Errorf("%s: lost %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: lost %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	if e := s.ServerEvidence["v"]; !e.OTLP || !e.Stages || e.Profiler {
		t.Errorf("v: %+v", e)
	}
}
