package claims

import (
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/task"
)

// A LaterFamily is a family of claims fields (claims.Leaves paths) that a
// build computes and earlier builds did not. A sealed claims.json with
// none of a family's fields predates it: a verifier (verify's check 6)
// and seal's claims check (internal/session) do not compare the family,
// and say "not computed by the build that sealed it", rather than call
// the fields missing. One with some of it and not others was edited.
// Leaving a family out gains a forger nothing: what it summarises is
// checked from its raw evidence elsewhere.
type LaterFamily struct {
	What string
	In   func(field string) bool // a field of the family
}

// LaterFamilies are every family added after the first claims.json: the
// core's, then each registered task's figure (taskFigureFamilies).
var LaterFamilies = append([]LaterFamily{
	{"server block", func(f string) bool { return ServerBlock(f) != "" }},
	{"steady-state figures (mean_in_flight, full_concurrency_share)", func(f string) bool {
		return strings.HasSuffix(f, ".mean_in_flight") || strings.HasSuffix(f, ".full_concurrency_share")
	}},
	{"keep-up figures (arrival_latency_growth, backlog_growth)", func(f string) bool {
		return strings.HasSuffix(f, ".arrival_latency_growth") || strings.HasSuffix(f, ".backlog_growth")
	}},
	{"cache_hits_counter (which counter cache_hits is the growth of)", func(f string) bool { return strings.HasSuffix(f, ".cache_hits_counter") }},
	{"tts figures (rtf_p50/p95, first_audio_p50/p95/p99_s, audio_s_per_char)", func(f string) bool {
		return slices.ContainsFunc(ttsLeaves, func(s string) bool { return strings.HasSuffix(f, s) })
	}},
	{"cache probe counter growth", func(f string) bool {
		return strings.HasPrefix(f, "probes[") && (strings.Contains(f, ".counter_growth") || strings.HasSuffix(f, ".counter_agrees"))
	}},
}, taskFigureFamilies()...)

// taskFigureFamilies is one family per figure of each registered task
// (task.Figurer), less those of the tts family above: a figure a task
// adds (chat-audio's ttft_p50_s) is absent from claims sealed by a build
// that did not compute it.
func taskFigureFamilies() []LaterFamily {
	var out []LaterFamily
	for _, name := range task.Names() {
		tk, _ := task.Lookup(name)
		f := task.FiguresOf(tk)
		if f == nil {
			continue
		}
		for _, s := range f.Figures() {
			leaf := "." + s.Name
			if slices.Contains(ttsLeaves, leaf) {
				continue
			}
			out = append(out, LaterFamily{What: name + " figure " + s.Name, In: func(f string) bool { return strings.HasSuffix(f, leaf) }})
		}
	}
	return out
}

// ttsLeaves end the fields of the tts family (schemas.Metrics).
var ttsLeaves = []string{".rtf_p50", ".rtf_p95", ".first_audio_p50_s", ".first_audio_p95_s", ".first_audio_p99_s", ".audio_s_per_char"}

// LaterOf is the family field is of, nil when none.
func LaterOf(field string) *LaterFamily {
	for i := range LaterFamilies {
		if LaterFamilies[i].In(field) {
			return &LaterFamilies[i]
		}
	}
	return nil
}

// Predates lists the families none of whose fields sealed (the leaves of
// a sealed claims.json) holds, by What.
func Predates(sealed []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range LaterFamilies {
		out[f.What] = !slices.ContainsFunc(sealed, f.In)
	}
	return out
}

// ServerBlock is the path of the server block a claims field lies in
// ("targets[a].levels[c=1].repeats[r=1].server"), "" when none.
func ServerBlock(field string) string {
	if i := strings.Index(field, ".server."); i >= 0 {
		return field[:i+len(".server")]
	}
	return ""
}
