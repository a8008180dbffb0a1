package bench

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// A response_format=text run on the vllm persona (which answers JSON, as
// vLLM does) scores the transcript, not the JSON: the records keep the
// reference text with the json_body note and WER is 0; on sglang-omni
// (text/plain) the body is the transcript and there is no note.
func TestTextFormatScoresTranscript(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.2)
	for _, persona := range []string{sim.PersonaVLLM, sim.PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			ts := simServer(t, sim.Config{Persona: persona, Corpus: sc})
			dir, res, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL, Fields: map[string]string{"response_format": "text"}}},
				Corpus: clips, Levels: []int{2}, Requests: []int{4}, Warmup: []int{0}, Repeats: 1})
			if err != nil {
				t.Fatal(err)
			}
			wantNote := map[string]string{sim.PersonaVLLM: schemas.NoteJSONBody, sim.PersonaSGLangOmni: ""}[persona]
			for _, r := range loadRun(t, dir).recs {
				if !r.OK || strings.Contains(r.Text, "{") || r.Text != refs[r.Seq%2] || r.ResponseNote != wantNote {
					t.Errorf("seq %d: ok %v text %q note %q, want %q and note %q", r.Seq, r.OK, r.Text, r.ResponseNote, refs[r.Seq%2], wantNote)
				}
			}
			if w := res.Claims.Targets[0].Levels[0].Median.Quality; w == nil || *w != 0 {
				t.Errorf("WER = %v, want 0: the JSON was scored", w)
			}
		})
	}
}

// A stream that fails midway (each persona's error event) or is cut short
// is a failed record with its error class and the server's message, on
// both personas, never a success with half a transcript.
func TestMidStreamFailures(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.2)
	for _, tc := range []struct {
		persona string
		cfg     sim.Config
		class   string
		msg     string
	}{
		{sim.PersonaVLLM, sim.Config{StreamFailRate: 1}, schemas.ErrStreamError, "simulated failure mid-stream"},
		{sim.PersonaSGLangOmni, sim.Config{StreamFailRate: 1}, schemas.ErrStreamError, "simulated failure mid-stream"},
		{sim.PersonaVLLM, sim.Config{StreamCutRate: 1}, schemas.ErrStreamTruncated, "without data: [DONE]"},
		{sim.PersonaSGLangOmni, sim.Config{StreamCutRate: 1}, schemas.ErrStreamTruncated, "without data: [DONE]"},
	} {
		t.Run(tc.persona+"/"+tc.class, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Persona, cfg.Corpus = tc.persona, sc
			ts := simServer(t, cfg)
			dir, res, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
				Levels: []int{1}, Requests: []int{2}, Warmup: []int{0}, Repeats: 1, Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range loadRun(t, dir).recs {
				if r.OK || r.ErrorClass != tc.class || !strings.Contains(r.Error, tc.msg) || r.Status != 200 || r.Text == "" {
					t.Errorf("seq %d: ok %v class %q error %q status %d text %q", r.Seq, r.OK, r.ErrorClass, r.Error, r.Status, r.Text)
				}
			}
			if m := res.Claims.Targets[0].Levels[0].Median; m.Succeeded != 0 || m.Errors[tc.class] != 2 {
				t.Errorf("claims: %d succeeded, errors %v", m.Succeeded, m.Errors)
			}
		})
	}
}

// Every record carries the X-Request-Id it was sent, re-derived from the
// run, and the id the server gave: vLLM's transcribe-<sent id> (its stream
// chunks' id), SGLang-Omni's own transcription-<uuid> (its stream header).
func TestRequestIDs(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.2)
	for _, persona := range []string{sim.PersonaVLLM, sim.PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			ts := simServer(t, sim.Config{Persona: persona, Corpus: sc})
			dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips, Seed: 9,
				Levels: []int{2}, Requests: []int{3}, Warmup: []int{1}, Repeats: 1, Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			l := loadRun(t, dir)
			seen := map[string]bool{}
			for _, r := range l.recs {
				want := RequestID(l.run.Seed, r.Target, r.Concurrency, r.Repeat, r.Seq)
				if r.RequestID != want || seen[r.RequestID] {
					t.Errorf("seq %d: request_id %q, want %q once", r.Seq, r.RequestID, want)
				}
				seen[r.RequestID] = true
				switch persona {
				case sim.PersonaVLLM:
					if r.ServerRequestID != "transcribe-"+r.RequestID {
						t.Errorf("seq %d: server id %q", r.Seq, r.ServerRequestID)
					}
				default:
					if !strings.HasPrefix(r.ServerRequestID, "transcription-") {
						t.Errorf("seq %d: server id %q", r.Seq, r.ServerRequestID)
					}
				}
			}
		})
	}
	if RequestID(1, "a", 8, 1, 0) == RequestID(2, "a", 8, 1, 0) || RequestID(1, "a", 8, 1, 0) == RequestID(1, "b", 8, 1, 0) ||
		RequestID(1, "a b\n", 8, 1, 0) != "bs-"+RequestID(1, "a b\n", 8, 1, 0)[3:] || strings.ContainsAny(RequestID(1, "a b\n", 8, 1, 0), " \n") {
		t.Errorf("RequestID does not separate seeds and targets, or leaks the name")
	}
}
