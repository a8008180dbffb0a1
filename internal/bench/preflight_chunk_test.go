package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/sim"
)

// warnings is a Progress that keeps the warnings.
type warnings struct {
	discard
	got []string
}

func (w *warnings) Warnf(format string, args ...any) {
	w.got = append(w.got, fmt.Sprintf(format, args...))
}

// TestRunNamesClipsOverChunkLimit: a clip longer than the target's
// engine splits in one request is named before the sweep, with how many
// engine requests it becomes and that the counters count them: vLLM
// (owned_by "vllm") at 30 s; SGLang-Omni's 60 s limit does not reach a
// 35 s clip.
func TestRunNamesClipsOverChunkLimit(t *testing.T) {
	clips, sc := testCorpus(t, 2, 35)
	for _, tc := range []struct {
		persona string
		want    string
	}{
		{sim.PersonaVLLM, `target "a": 2 clips are longer than vllm's 30 s chunk limit (a, b), so vllm splits each request of them (the longest, 35.0 s: 2 to 2 engine requests), and its request counter and stage histograms count each engine request`},
		{sim.PersonaSGLangOmni, ""},
	} {
		t.Run(tc.persona, func(t *testing.T) {
			ts := simServer(t, sim.Config{Persona: tc.persona, Corpus: sc})
			w := &warnings{}
			if _, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
				Levels: []int{1}, Requests: []int{1}, Warmup: []int{0}, Repeats: 1}, WithProgress(w)); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(w.got, "\n")
			if tc.want == "" && strings.Contains(got, "chunk limit") || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("warnings:\n%s\nwant %q", got, tc.want)
			}
		})
	}
}
