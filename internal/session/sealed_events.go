package session

// What per-request server evidence the sealed run holds, so that a replay
// that collects none of it can say the second witness is lost.

import (
	"path"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// SealedEvidence is the per-request server evidence of one target of the
// sealed run, by where it came from.
type SealedEvidence struct {
	OTLP     bool // servers/<target>/otlp/: vLLM's OpenTelemetry spans
	Profiler bool // servers/<target>/events/: SGLang-Omni's request profiler
	Stages   bool // servers/<target>/stages/: the joined stage times
}

// NoteEvidence records name, an entry of the sealed run, in
// s.ServerEvidence when it is per-request server evidence
// (schemas.IsServerEvents). The bundle reader calls it for every entry
// it passes, kept or not.
func (s *Sealed) NoteEvidence(name string) {
	if !schemas.IsServerEvents(name) {
		return
	}
	rest := strings.TrimPrefix(name, schemas.ServersDir+"/")
	target, rest, _ := strings.Cut(rest, "/")
	kind, _, _ := strings.Cut(rest, "/")
	if s.ServerEvidence == nil {
		s.ServerEvidence = map[string]SealedEvidence{}
	}
	e := s.ServerEvidence[target]
	switch path.Clean(kind) {
	case "otlp":
		e.OTLP = true
	case "events":
		e.Profiler = true
	case "stages":
		e.Stages = true
	}
	s.ServerEvidence[target] = e
}

// LostEvidence is a replayed target whose sealed run holds per-request
// server evidence that the replay, as configured, collects none of.
type LostEvidence struct {
	Target string
	Sealed SealedEvidence
}

// LostEvidence lists, in the order of targets, the replayed targets whose
// server evidence the sealed run has and ev (with the servers launched,
// which get a profiler directory of their own) does not collect.
func (s *Sealed) LostEvidence(targets []string, ev ServerEvents, launched map[string]string) []LostEvidence {
	var out []LostEvidence
	for _, t := range targets {
		se, ok := s.ServerEvidence[t]
		if !ok {
			continue
		}
		_, prof := ev.ProfilerDirs[t]
		if _, l := launched[t]; l {
			prof = true
		}
		otlp := ev.OTLPListen != ""
		if se.OTLP && otlp || se.Profiler && prof || !se.OTLP && !se.Profiler && (otlp || prof) {
			continue
		}
		out = append(out, LostEvidence{Target: t, Sealed: se})
	}
	return out
}
