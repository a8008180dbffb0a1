package task_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// realtimeCorpus is two 16 kHz mono clips of 2.5 and 3 s: past the
// SGLang-Omni persona's 2 s re-decode interval, so each gets a partial
// before its final.
func realtimeCorpus(t *testing.T) (string, []task.Clip) {
	t.Helper()
	dir := t.TempDir()
	for i, text := range []string{"the quick brown fox", "jumps over the lazy dog today"} {
		id := []string{"a", "b"}[i]
		os.WriteFile(filepath.Join(dir, id+".wav"), testkit.NoiseWAV(2.5+float64(i)/2, uint64(i+1)), 0o644)
		os.WriteFile(filepath.Join(dir, id+".txt"), []byte(text+"\n"), 0o644)
	}
	clips, err := task.Realtime.LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, clips
}

// runRealtime runs a realtime sweep against persona on loopback, the
// target naming no protocol (run takes the engine's), and returns the
// run directory.
func runRealtime(t *testing.T, persona string) (string, *bench.Result) {
	t.Helper()
	corpus, clips := realtimeCorpus(t)
	simClips, err := sim.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(sim.Config{Persona: persona, Corpus: simClips, BaseLatency: 20 * time.Millisecond, PerAudioSecond: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	s, err := session.Start(context.Background(), session.Config{
		Out: filepath.Join(t.TempDir(), "run"), Servers: session.Servers{GPUs: map[string][]int{}},
		Plan: bench.Plan{Task: task.Realtime, Targets: []bench.Target{{Name: "t", URL: hs.URL}}, Corpus: clips,
			Levels: []int{1, 2}, Requests: []int{2, 4}, Warmup: []int{1, 1}, Repeats: 1, Seed: 3, Command: []string{"benchseal", "run"},
			Realtime: &schemas.Realtime{ChunkMs: 100, Speed: 4, LateMs: task.DefaultLateMs},
			Scoring:  schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
	})
	t.Cleanup(s.Stop)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir, res
}

// TestRealtimePersonas streams sessions through the runner to both
// personas, each in its engine's protocol (picked from the engine the
// server names): every session succeeds with its transcript (WER 0;
// vLLM's per-segment language headers stripped), the figures are
// observed (SGLang-Omni's first partial revised, vLLM's deltas never),
// run.json seals the rule and the protocol, and verify fails no check.
// Then each doctoring of a sealed session FAILs check 5: a final text
// edited, the events reordered, a chunk's send time moved past the
// pacing bound.
func TestRealtimePersonas(t *testing.T) {
	for _, tc := range []struct {
		persona   string
		proto     engine.StreamEvents
		revisions bool
	}{
		{sim.PersonaVLLM, engine.RealtimeDeltas, false},
		{sim.PersonaSGLangOmni, engine.RealtimeSegments, true},
	} {
		t.Run(tc.persona, func(t *testing.T) {
			dir, res := runRealtime(t, tc.persona)
			m := res.Claims.Targets[0].Levels[1].Median
			if m.Succeeded != 4 || m.Quality == nil || *m.Quality != 0 {
				t.Fatalf("succeeded %d, WER %v: want 4 sessions, each its transcript", m.Succeeded, m.Quality)
			}
			for _, f := range []string{task.FigFirstPartialP50, task.FigFinalLagP50, task.FigStreamRTFP50, task.FigChunkLateP99, task.FigRevisions} {
				if m.Figure(f) == nil {
					t.Errorf("figure %s not observed", f)
				}
			}
			// The persona decodes for at least 20 ms after the end of
			// audio: a lower bound, whatever the host's load.
			if lag := m.Figure(task.FigFinalLagP50); lag != nil && *lag < 0.02 {
				t.Errorf("final lag p50 %v s: want >= 20 ms", *lag)
			}
			if rev := m.Figure(task.FigRevisions); rev != nil && (*rev > 0) != tc.revisions {
				t.Errorf("revisions %v: want revised %v", *rev, tc.revisions)
			}
			var run schemas.Run
			b, _ := os.ReadFile(filepath.Join(dir, "run.json"))
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			if rt := run.Protocol.Realtime; rt == nil || rt.ChunkMs != 100 || rt.Speed != 4 {
				t.Errorf("run.json protocol.realtime %+v: want the rule sealed", rt)
			}
			if got := run.Targets[0].RequestFields[task.FieldProtocol]; got != string(tc.proto) {
				t.Errorf("target protocol %q, want %q (the engine's row)", got, tc.proto)
			}
			failed := func(dir string) []string {
				rep, err := verify.Dir(context.Background(), dir, verify.Options{})
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, c := range rep.Checks {
					if c.Status == verify.Fail {
						for _, f := range c.Findings {
							out = append(out, f.Reason)
						}
						out = append(out, c.Summary)
					}
				}
				return out
			}
			if f := failed(dir); len(f) > 0 {
				t.Fatalf("verify fails the run: %q", f)
			}
			if tc.proto == engine.RealtimeSegments {
				// SGLang-Omni counts no WebSocket: check 9 says so once
				// for the target, not once a step.
				rep, err := verify.Dir(context.Background(), dir, verify.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := "not observed: t (2 steps): the server's /metrics has no " + engine.VLLMWebSocketTotal
				if c := rep.Checks[8]; c.ID != 9 || !strings.Contains(c.Summary, want) || strings.Count(c.Summary, engine.VLLMWebSocketTotal) != 1 {
					t.Errorf("check %d: %s\nwant once: %s", c.ID, c.Summary, want)
				}
			}
			if tc.proto == engine.RealtimeDeltas {
				// The server's own count of its WebSockets: fewer than
				// the sessions the records hold is FAIL.
				doctored := copyDir(t, dir)
				after := filepath.Join(doctored, schemas.MetricsPath("t", 2, 1, "after"))
				b, err := os.ReadFile(after)
				if err != nil {
					t.Fatal(err)
				}
				re := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(engine.VLLMWebSocketTotal) + `) (\d+)$`)
				m := re.FindSubmatch(b)
				if m == nil {
					t.Fatalf("no %s in %s", engine.VLLMWebSocketTotal, after)
				}
				n, _ := strconv.Atoi(string(m[2]))
				os.WriteFile(after, re.ReplaceAll(b, []byte(fmt.Sprintf("${1} %d", n-3))), 0o644)
				if f := strings.Join(failed(doctored), "\n"); !strings.Contains(f, "sessions it never accepted were written") {
					t.Errorf("a server that accepted fewer WebSockets than the records hold: failures %q", f)
				}
			}
			for _, d := range []struct {
				name, want string
				edit       func(s *task.RealtimeSession)
			}{
				{"final text", "is not the final event's", func(s *task.RealtimeSession) { s.Final += " extra" }},
				{"final event", "and the final event", func(s *task.RealtimeSession) {
					s.Final += " extra"
					s.Events[len(s.Events)-1].Text = s.Final
				}},
				{"event order", "out of order", func(s *task.RealtimeSession) {
					n := len(s.Events)
					s.Events[n-1].AtNs, s.Events[n-2].AtNs = s.Events[n-2].AtNs, s.Events[n-1].AtNs+1
				}},
				{"late chunk", "beyond the 50 ms bound, yet the session is a success", func(s *task.RealtimeSession) {
					s.ChunksNs[3] += 80e6
				}},
			} {
				t.Run(d.name, func(t *testing.T) {
					doctored := copyDir(t, dir)
					editFirstSession(t, filepath.Join(doctored, schemas.RecordsPath("t", 2, 1)), d.edit)
					f := failed(doctored)
					if !strings.Contains(strings.Join(f, "\n"), d.want) {
						t.Fatalf("doctored %s: failures %q, want one saying %q", d.name, f, d.want)
					}
				})
			}
		})
	}
}

// editFirstSession rewrites the first measured record of a records file
// with its session edited (and its text_scored kept as the rule scores
// the edited final text, so only the session's own checks can notice).
func editFirstSession(t *testing.T, path string, edit func(s *task.RealtimeSession)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i, line := range lines {
		var r schemas.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Phase != schemas.PhaseMeasure || !r.OK {
			continue
		}
		s, err := task.ParseRealtimeSession(r.Text)
		if err != nil {
			t.Fatal(err)
		}
		edit(s)
		r.Text = s.String()
		r.Scored, _, _ = task.Realtime.Score(r.Text)
		if lines[i], err = json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		break
	}
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestRealtimeLateStream: a session whose pacer overslept one chunk past
// the rule's bound is a late_stream failure, its timeline kept, even
// though the server answered it.
func TestRealtimeLateStream(t *testing.T) {
	corpus, clips := realtimeCorpus(t)
	simClips, _ := sim.LoadCorpus(corpus)
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLM, Corpus: simClips})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	anchor := time.Now()
	now := func() int64 { return time.Since(anchor).Nanoseconds() }
	chunk := 0
	w := clips[0].WAV
	req := &task.SessionRequest{URL: hs.URL + engine.RealtimePath,
		Target: task.Target{Model: srv.Config().Model, Fields: map[string]string{task.FieldProtocol: string(engine.RealtimeDeltas)}},
		Audio:  perturb.Splice{Head: w.Bytes}, DataOffset: w.DataOffset, DataSize: w.DataSize, Rate: w.Format.SampleRate,
		Rule: schemas.Realtime{ChunkMs: 100, Speed: 10, LateMs: 50}, Now: now,
		SleepUntil: func(ctx context.Context, ns int64) error {
			chunk++
			if chunk == 4 {
				ns += 80e6 // the pacer overslept
			}
			time.Sleep(time.Until(anchor.Add(time.Duration(ns))))
			return nil
		},
		OnText: func(int64) {},
	}
	text, _, err := task.Realtime.(task.Sessioner).Session(context.Background(), req)
	var se *task.SessionError
	if !asSessionError(err, &se) || se.Class != task.ErrLateStream || !strings.Contains(se.Msg, "chunk 3") {
		t.Fatalf("err %v: want a late_stream failure naming chunk 3", err)
	}
	s, perr := task.ParseRealtimeSession(text)
	if perr != nil || s.Final == "" || len(s.ChunksNs) == 0 {
		t.Fatalf("the late session's timeline was not kept: %v %q", perr, text)
	}
}

// TestRealtimeServerErrors: the engines' error events end a session as
// session_error, with their code: vLLM's model_not_found for a model it
// does not serve, invalid_event for SGLang-Omni's session.update (no
// model).
func TestRealtimeServerErrors(t *testing.T) {
	corpus, clips := realtimeCorpus(t)
	simClips, _ := sim.LoadCorpus(corpus)
	for _, tc := range []struct {
		persona string
		target  task.Target
		code    string
	}{
		{sim.PersonaVLLM, task.Target{Model: "not-served", Fields: map[string]string{}}, "model_not_found"},
		{sim.PersonaVLLM, task.Target{Fields: map[string]string{task.FieldProtocol: string(engine.RealtimeSegments)}}, "invalid_event"},
	} {
		srv, err := sim.New(sim.Config{Persona: tc.persona, Corpus: simClips})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		w := clips[0].WAV
		anchor := time.Now()
		req := &task.SessionRequest{URL: hs.URL + engine.RealtimePath, Target: tc.target,
			Audio: perturb.Splice{Head: w.Bytes}, DataOffset: w.DataOffset, DataSize: w.DataSize, Rate: w.Format.SampleRate,
			Rule: schemas.Realtime{ChunkMs: 100, Speed: 20, LateMs: 50}, Now: func() int64 { return time.Since(anchor).Nanoseconds() },
			SleepUntil: func(ctx context.Context, ns int64) error {
				time.Sleep(time.Until(anchor.Add(time.Duration(ns))))
				return nil
			},
			OnText: func(int64) {},
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _, err = task.Realtime.(task.Sessioner).Session(ctx, req)
		cancel()
		hs.Close()
		var se *task.SessionError
		if !asSessionError(err, &se) || se.Class != task.ErrSession || !strings.Contains(se.Msg, tc.code) {
			t.Errorf("%s: err %v, want a session_error with %s", tc.persona, err, tc.code)
		}
	}
}

func asSessionError(err error, se **task.SessionError) bool { return errors.As(err, se) }

// TestRealtimeScored: vLLM's Qwen3-ASR realtime joins every 5 s
// segment's deltas, each segment's language header with them; scoring
// sees the words alone, the headers word boundaries.
func TestRealtimeScored(t *testing.T) {
	got := task.RealtimeScored("language English<asr_text>the quick brownlanguage English<asr_text>fox jumps")
	if got != "the quick brown fox jumps" {
		t.Fatalf("scored %q", got)
	}
}

// TestRealtimeInputs: a clip the engines would not stream as it is (not
// 16 kHz mono 16-bit) is refused with the conversion, and a field the
// session would not send is refused.
func TestRealtimeInputs(t *testing.T) {
	_, err := task.Realtime.Input("x.wav", testkit.PCM16(44100, make([]int16, 441)))
	if err == nil || !strings.Contains(err.Error(), "sox in.wav -b 16 -c 1 -r 16000 out.wav") {
		t.Errorf("a 44.1 kHz clip: err %v, want refused with the conversion", err)
	}
	if _, err := task.Realtime.Envelope(task.Target{Fields: map[string]string{"temperature": "0"}}); err == nil {
		t.Error("a field no session.update carries was accepted")
	}
	if _, err := task.Realtime.Envelope(task.Target{Fields: map[string]string{task.FieldProtocol: "openai"}}); err == nil {
		t.Error("an unknown protocol was accepted")
	}
}
