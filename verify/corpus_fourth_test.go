package verify_test

// The corpus's fourth pass (issue 38): edits a key holder made to honest
// runs that the checks before it let through.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, fourthPassKinds) }

func fourthPassKinds() []kind {
	fail := verify.Fail
	return []kind{
		// run.json's started_at moved (as a plan stamped after the run
		// needs): every record's time moves with it, and the server's
		// spans, on the client's own clock (the targets are on loopback),
		// now start 1838 s from their records, all by the same amount,
		// which one drifting offset would fit.
		{name: "clock-moved-loopback", class: "events", check: verify.CheckEvents, status: fail, text: "is on loopback, on the client's own clock",
			doctor: func(tb testing.TB, dir string) {
				var run schemas.Run
				getJSON(tb, filepath.Join(dir, schemas.RunFile), &run)
				run.StartedAt = run.StartedAt.Add(-1838 * time.Second)
				putJSON(tb, filepath.Join(dir, schemas.RunFile), run)
			}},
		// Issue 38's shave: every measured record of a step ends 1.2 ms
		// early (claims recomputed), within the per-request slack of
		// 2 ms + 1 %, but the step's median request is now shorter than
		// the server's own account of it.
		{name: "latency-shaved-under-spans", class: "events", check: verify.CheckEvents, status: fail, text: "shorter than the server's own end-to-end time for it",
			doctor: func(tb testing.TB, dir string) {
				e2e := map[string]float64{}
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(schemas.StagesPath("a", 3, 1))))
				must(tb, err)
				for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					var l schemas.RequestStages
					must(tb, json.Unmarshal([]byte(line), &l))
					if l.RequestID != "" && l.E2ES != nil {
						e2e[l.RequestID] = *l.E2ES
					}
				}
				retime(tb, dir, "records/a/c3-r1.jsonl", func(t0 int64, m []*schemas.Record) {
					for _, r := range m {
						if s, ok := e2e[r.RequestID]; ok && r.OK {
							r.EndNs = r.StartNs + int64(s*1e9) - 1_200_000
							r.FirstByteNs = min(r.FirstByteNs, r.EndNs)
						}
					}
				})
				refresh(tb, dir)
			}},
		// Knobs held from both sides. A limit raised above what ran (2 ->
		// 16): the records never had more than 3 in flight, so the law
		// from above says nothing, but the server queued requests a limit
		// of 16 would have run at once.
		{name: "max-running-raised", class: "fairness", check: 8, status: fail, text: "it queued requests a limit of 16 would have run",
			base: func(tb testing.TB) string { return limited.get(tb) },
			doctor: func(tb testing.TB, dir string) {
				setMaxNumSeqs(tb, dir, `max_num_seqs\":2`, `max_num_seqs\":16`)
				refresh(tb, dir)
			}},
		// The limit lowered (64 -> 1) with one preemption inserted in
		// each scrape pair: a preemption no longer makes the law skip
		// the step, it widens it by the step's longest request. (A
		// limit of 2 left a C = 3 step's few requests within the
		// widened bound where a loaded host slowed one of them.)
		{name: "max-running-edited-preempted", class: "fairness", check: 8, status: fail, text: "which a server limited to 1 cannot do",
			doctor: func(tb testing.TB, dir string) {
				setMaxNumSeqs(tb, dir, `max_num_seqs\":64`, `max_num_seqs\":1`)
				proms, err := filepath.Glob(filepath.Join(dir, "servers", "*", "metrics", "c3-*.prom"))
				must(tb, err)
				for _, p := range proms {
					n := 0
					if strings.HasSuffix(p, "-after.prom") {
						n = 1
					}
					editFile(tb, dir, strings.TrimPrefix(filepath.ToSlash(p), filepath.ToSlash(dir)+"/"), func(s string) string {
						return s + fmt.Sprintf("# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total %d\n", n)
					})
				}
				refresh(tb, dir)
			}},
		// TTS seconds inflated by 30 % in every record, consistently (the
		// same audio the same seconds everywhere, claims recomputed):
		// vLLM-Omni's own audio_duration_s says what it produced.
		{name: "tts-seconds-inflated-everywhere", class: "tts", check: verify.CheckServer, status: fail, text: "the records' audio seconds were edited",
			base: ttsScrapedRun,
			doctor: func(tb testing.TB, dir string) {
				files, err := filepath.Glob(filepath.Join(dir, "records", "a", "*.jsonl"))
				must(tb, err)
				for _, f := range files {
					editOpenRecords(tb, dir, strings.TrimPrefix(filepath.ToSlash(f), filepath.ToSlash(dir)+"/"), func(rs []schemas.Record) []schemas.Record {
						for i := range rs {
							if a, err := task.ParseAudio(rs[i].Text); err == nil {
								a.Seconds *= 1.3
								rs[i].Seconds, rs[i].Text = a.Seconds, a.String()
							}
						}
						return rs
					})
				}
				refresh(tb, dir)
			}},
		// The first byte cut 5x below what it was (time to first byte
		// flattered): the server's own first token comes after it.
		{name: "first-byte-before-server-ttft", class: "events", check: verify.CheckEvents, status: fail, text: "before the server's own first token",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, "records/a/c3-r1.jsonl", func(t0 int64, m []*schemas.Record) {
					for _, r := range m {
						if r.FirstByteNs > r.StartNs {
							r.FirstByteNs = r.StartNs + (r.FirstByteNs-r.StartNs)/5
						}
					}
				})
				refresh(tb, dir)
			}},
		// Steady state made by lengthening: each worker's last request
		// of the last step ends 300 ms after the step's last end, all at
		// once (no start moves, so the closed loop and the clock offset
		// hold), claims recomputed: the records fill the drain with C in
		// flight, the server's own e2e for the same requests does not.
		{name: "latencies-lengthened-steady", class: "events", check: verify.CheckEvents, status: fail, text: "the records' latencies were lengthened beyond what the server did",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, lastStep, func(t0 int64, m []*schemas.Record) {
					last := map[int]*schemas.Record{}
					end := int64(0)
					for _, r := range m {
						if l := last[r.Worker]; l == nil || r.StartNs > l.StartNs {
							last[r.Worker] = r
						}
						end = max(end, r.EndNs)
					}
					for _, r := range last {
						r.EndNs = end + 300e6
					}
				})
				refresh(tb, dir)
			}},
		// An open-loop level the server did not keep up with (latency
		// from arrival growing through it) made to read as kept up: every
		// measured latency of the level set to its first's, claims
		// recomputed. The server's own spans hold each request's queue.
		{name: "openloop-keptup-forged", class: "events", check: verify.CheckEvents, status: fail, text: "the record's latency is shorter than the server's own",
			base: overloadedOpenRun,
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, "records/a/c2-r1.jsonl", func(rs []schemas.Record) []schemas.Record {
					first := int64(-1)
					for i := range rs {
						r := &rs[i]
						if r.Phase != schemas.PhaseMeasure || !r.OK {
							continue
						}
						if first < 0 {
							first = r.EndNs - r.StartNs
						}
						r.EndNs = r.StartNs + first
						r.FirstByteNs = min(r.FirstByteNs, r.EndNs)
					}
					return rs
				})
				refresh(tb, dir)
				var c schemas.Claims
				getJSON(tb, filepath.Join(dir, schemas.ClaimsFile), &c)
				if k := claims.KeepUpOf(c.Targets[0].Levels[1].Median, 0); k != claims.KeptUp {
					tb.Fatalf("the forgery does not read as kept up: %v", k)
				}
			}},
		// Every per-request server account of a target deleted (spans
		// and stages), though run.json says they were collected: the
		// absence is evidence removed, not "not observed".
		{name: "spans-of-target-removed", class: "events", check: verify.CheckEvents, status: fail, text: "run.json says the server's OpenTelemetry spans were collected",
			base: overloadedOpenRun,
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.RemoveAll(filepath.Join(dir, "servers", "a", "otlp")))
				must(tb, os.RemoveAll(filepath.Join(dir, "servers", "a", "stages")))
			}},
		// Every /metrics scrape of a target deleted, failures and all:
		// with no scrape of it left, none used to be required, though
		// telemetry/steps.jsonl records when each was taken.
		{name: "all-scrapes-of-target-removed", class: "protocol", check: 7, status: fail, text: "its telemetry/steps.jsonl line records when it was taken",
			doctor: func(tb testing.TB, dir string) {
				proms, err := filepath.Glob(filepath.Join(dir, "servers", "a", "metrics", "*.prom"))
				must(tb, err)
				if len(proms) == 0 {
					tb.Fatal("the base run has no scrape of a")
				}
				for _, p := range proms {
					must(tb, os.Remove(p))
				}
			}},
	}
}

// TestReportRules: a REPORT.md rewritten by a key holder (the
// conclusion reversed, the simulated banner deleted, a trailing space)
// FAILs for any verifier whose renderer has the rules the report names,
// whatever build it is, and says how many lines differ; a verifier with
// other rules WARNs with the same count; a report whose rules line was
// removed names no rules and WARNs.
func TestReportRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules int // the verifier's renderer's
		edit  func(string) string
		want  verify.Status
		texts []string
	}{
		{name: "same-rules", rules: report.RulesVersion, edit: rewriteReport, want: verify.Fail,
			texts: []string{fmt.Sprintf("names report rules %d, this renderer's", report.RulesVersion), "3 line(s) differ", `"## Conclusion "`}},
		{name: "other-rules", rules: report.RulesVersion + 1, edit: rewriteReport, want: verify.Warn,
			texts: []string{fmt.Sprintf("names report rules %d", report.RulesVersion), "3 line(s) differ", "its text is not checked"}},
		{name: "rules-line-removed", rules: report.RulesVersion, want: verify.Warn,
			edit: func(s string) string {
				s = strings.TrimSuffix(s, "\n")
				return s[:strings.LastIndex(s, "\n")+1]
			},
			texts: []string{"names no report rules"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, full.get(t), dir)
			editFile(t, dir, "REPORT.md", tc.edit)
			s := testSigner(t)
			b := seal(t, dir, s, bundle.SealOptions{})
			// Another build than the one that sealed: only the rules decide.
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{PublicKey: s.PublicKey(),
				RenderReport: renderReport, RenderReportTool: "another-build", RenderReportRules: tc.rules})
			must(t, err)
			c := rep.Check(verify.CheckClaims)
			var got string
			for _, f := range c.Findings {
				got += f.String() + "\n"
			}
			t.Logf("check 6: %s\n%s", c.Status, got)
			if c.Status != tc.want {
				t.Fatalf("check 6: %s, want %s:\n%s", c.Status, tc.want, got)
			}
			for _, w := range tc.texts {
				if !strings.Contains(got, w) {
					t.Errorf("check 6 does not say %q:\n%s", w, got)
				}
			}
		})
	}
}

// rewriteReport is the key holder's edit: a trailing space on the
// conclusion's heading (which once hid the rest), the simulated banner
// gone, the lead reversed.
func rewriteReport(s string) string {
	s = strings.Replace(s, "## Conclusion\n", "## Conclusion \n", 1)
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "simulator") {
			continue
		}
		out = append(out, l)
	}
	s = strings.Join(out, "\n")
	return strings.Replace(s, "| a ", "| a (fastest) ", 1)
}

// limited is the corpus's base run against servers that run at most 2
// requests at once (max_num_seqs 2), so that level 3 queues one.
var limited = &limitedFixture{}

type limitedFixture struct {
	once sync.Once
	dir  string
}

func (f *limitedFixture) get(tb testing.TB) string {
	f.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "limited-")
		must(tb, err)
		makeRunLimited(tb, base, 2)
		f.dir = filepath.Join(base, "run")
	})
	if f.dir == "" {
		tb.Fatal("the limited base run failed to build")
	}
	return f.dir
}

// setMaxNumSeqs rewrites the served max_num_seqs in every target's
// probes, before and after.
func setMaxNumSeqs(tb testing.TB, dir, from, to string) {
	tb.Helper()
	for _, t := range []string{"a", "b"} {
		for _, when := range []string{"before", "after"} {
			f := "servers/" + t + "/probes-" + when + ".json"
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				continue
			}
			editFile(tb, dir, f, func(s string) string {
				if !strings.Contains(s, from) {
					tb.Fatalf("%s: no %s", f, from)
				}
				return strings.ReplaceAll(s, from, to)
			})
		}
	}
}

// ttsScraped is a tts run as benchseal run makes it (a session: the
// recorder's /metrics scrapes around every step) against the
// simulator's vllm-omni persona, which exposes vllm_omni:audio_duration_s.
var ttsScraped struct {
	once sync.Once
	dir  string
}

func ttsScrapedRun(tb testing.TB) string {
	ttsScraped.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "tts-scraped-")
		must(tb, err)
		must(tb, os.WriteFile(filepath.Join(base, "ref.wav"), makeWAV(1.5, 31), 0o644))
		corpus := filepath.Join(base, "c.jsonl")
		must(tb, os.WriteFile(corpus, []byte(`{"id":"a","text":"Benchseal measures speech servers.","ref_audio":"ref.wav","ref_text":"noise"}
{"id":"b","text":"The quick brown fox jumps over the lazy dog.","ref_audio":"ref.wav","ref_text":"noise"}
`), 0o644))
		clips, err := task.TTS.LoadCorpus(corpus)
		must(tb, err)
		srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 20 * time.Millisecond})
		must(tb, err)
		hs := httptest.NewServer(srv)
		defer hs.Close()
		defer srv.Close()
		s, err := session.Start(context.Background(), session.Config{
			Out: filepath.Join(base, "run"), Servers: session.Servers{GPUs: map[string][]int{}},
			Plan: bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "a", URL: hs.URL, Model: srv.Config().Model}}, Corpus: clips,
				Levels: []int{1, 2}, Requests: []int{6}, Warmup: []int{1}, Repeats: 1, Seed: 38, Command: []string{"benchseal", "run"},
				Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}},
			Tool: testTool(), Timeout: bench.DefaultTimeout, SampleInterval: 20 * time.Millisecond,
		})
		defer s.Stop()
		must(tb, err)
		res, err := s.Run(context.Background())
		must(tb, err)
		refresh(tb, res.Dir)
		ttsScraped.dir = res.Dir
	})
	if ttsScraped.dir == "" {
		tb.Fatal("the scraped tts run failed to build")
	}
	return ttsScraped.dir
}

// TestTTSScrapedBase: the honest scraped tts run holds check 9, its
// records' audio seconds held to the server's audio_duration_s (not "not
// observed": the server counted exactly the decodable answers).
func TestTTSScrapedBase(t *testing.T) {
	rep, err := verify.Dir(context.Background(), ttsScrapedRun(t), verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckServer)
	if c.Status == verify.Fail || strings.Contains(c.Summary, "are not held to it") {
		t.Fatalf("check 9 of the honest tts run: %s %s %v", c.Status, c.Summary, c.Findings)
	}
}

// overloaded is an open-loop run (20 and 80 req/s) against a simulated
// vLLM that runs one 30 ms request at a time (about 33 req/s), its spans
// collected: it keeps up with the first rate, not the second.
var overloaded struct {
	once sync.Once
	dir  string
}

func overloadedOpenRun(tb testing.TB) string {
	overloaded.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "overloaded-")
		must(tb, err)
		sc, clips := writeCorpus(tb, base, 0.3, 41)
		// The session listens for the spans itself; the port is picked
		// here so that the simulator can be told it, and picked again in
		// the rare case another test took it in between.
		var s *session.Session
		for try := 0; ; try++ {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			must(tb, err)
			addr := ln.Addr().String()
			ln.Close()
			srv, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 30 * time.Millisecond, MaxRunning: 1, OTLPEndpoint: "http://" + addr})
			must(tb, err)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			defer srv.Close()
			s, err = session.Start(context.Background(), session.Config{
				Out: filepath.Join(base, "run"), Servers: session.Servers{GPUs: map[string][]int{}},
				Plan: bench.Plan{Targets: []bench.Target{{Name: "a", URL: hs.URL}}, Corpus: clips,
					Rates: []float64{20, 80}, Requests: []int{48}, Warmup: []int{2}, Repeats: 1, Seed: 81, Command: []string{"benchseal", "run"},
					Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"}},
				Tool: testTool(), Timeout: bench.DefaultTimeout, SampleInterval: 20 * time.Millisecond,
				Events: session.ServerEvents{OTLPListen: addr},
			})
			defer s.Stop()
			if err != nil && strings.Contains(err.Error(), "address already in use") && try < 5 {
				continue
			}
			must(tb, err)
			break
		}
		res, err := s.Run(context.Background())
		must(tb, err)
		refresh(tb, res.Dir)
		var c schemas.Claims
		getJSON(tb, filepath.Join(res.Dir, schemas.ClaimsFile), &c)
		if k := claims.KeepUpOf(c.Targets[0].Levels[1].Median, 0); k != claims.NotKeptUp {
			tb.Fatalf("the overloaded level reads %v, want did not keep up", k)
		}
		overloaded.dir = res.Dir
	})
	if overloaded.dir == "" {
		tb.Fatal("the overloaded open-loop run failed to build")
	}
	return overloaded.dir
}
