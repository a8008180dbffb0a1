package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestDemoTTS: `benchseal demo --task tts` runs the whole workflow on the
// embedded texts against the simulated speech servers: its bundle
// verifies (on its own, again, here), its claims hold the tts figures with
// time to first audio observed, and its report has the Text to speech
// table and the first-audio chart and says the targets are simulated.
func TestDemoTTS(t *testing.T) {
	requireE2E(t)
	out, printed, rep, rj, cl := demoOf(t, "tts")
	if !strings.Contains(printed, "0 failed") || !strings.HasSuffix(strings.TrimSpace(printed), "verifies") {
		t.Errorf("the demo's verify does not say the bundle verifies:\n%s", printed)
	}
	for _, id := range []int{verify.CheckVariants, verify.CheckClaims} {
		if c := rep.Check(id); c.Status != verify.Pass {
			t.Errorf("check %d: %s: %s", id, c.Status, c.Summary)
		}
	}
	if rj.Protocol.Task != "tts" || len(rj.Targets) != len(demo.TTSEngines) || rj.Corpus[0].Speak == "" {
		t.Fatalf("run.json: task %q, %d targets, first text %q", rj.Protocol.Task, len(rj.Targets), rj.Corpus[0].Speak)
	}
	for _, tc := range cl.Targets {
		for _, l := range tc.Levels {
			m := l.Median
			if m.Succeeded == 0 || m.Figure("first_audio_p50_s") == nil || m.Figure("first_audio_p99_s") == nil || m.Figure("rtf_p95") == nil || m.Figure("audio_s_per_char") == nil {
				t.Errorf("%s c=%d: tts figures missing: %+v", tc.Target, l.Concurrency, m)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Text-to-speech benchmark: ", "## Text to speech", "| first audio p50 ms |", "![Time to first audio", "**Simulated servers.** vllm-omni, sglang-omni answered as benchseal's simulator",
		"Their simulator settings differ (vllm-omni vs sglang-omni: ", demo.TTSModel} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report", "task_figure.svg")); err != nil {
		t.Error(err)
	}
	// The peers' views print beside it (no answer of the demo fails, so
	// they count what benchseal counts); the ASR seed client's refuses.
	var stdout, stderr bytes.Buffer
	for _, peer := range []string{"vllm-omni-tts", "sglang-omni-tts"} {
		stdout.Reset()
		if code := run([]string{"verify", filepath.Join(out, "run"), "--compat", peer}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("verify --compat %s: exit %d\n%s", peer, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "(--compat "+peer+")") || !strings.Contains(stdout.String(), "| vllm-omni | 1 | 1 | 10 | 10 | 10 | 0 |") {
			t.Errorf("verify --compat %s:\n%s", peer, stdout.String())
		}
	}
	stderr.Reset()
	if code := run([]string{"verify", filepath.Join(out, "run"), "--compat", "seedtts"}, strings.NewReader(""), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "for a tts run: vllm-omni-tts") {
		t.Errorf("--compat seedtts on a tts run: exit %d, %s", code, stderr.String())
	}
}

// demoOf runs `benchseal demo --task name` into a temporary folder and
// verifies its bundle again here, failing the test unless both end with
// no failed check; it returns the folder, the demo's stdout, that
// checklist and the run's run.json and claims.json.
func demoOf(t *testing.T, name string) (out, stdout string, rep *verify.Report, rj schemas.Run, cl schemas.Claims) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "d")
	var so, se bytes.Buffer
	if code := run([]string{"demo", "--task", name, "--out", out}, strings.NewReader(""), &so, &se); code != 0 {
		t.Fatalf("demo --task %s: exit %d\n%s\n%s", name, code, so.String(), se.String())
	}
	f, err := os.Open(filepath.Join(out, "evidence.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rep, err = verify.Bundle(context.Background(), f, verify.Options{}); err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 {
		b, _ := json.MarshalIndent(rep.Checks, "", "  ")
		t.Fatalf("the %s demo's bundle fails verify:\n%s", name, b)
	}
	readJSON(t, filepath.Join(out, "run", "run.json"), &rj)
	readJSON(t, filepath.Join(out, "run", "claims.json"), &cl)
	return out, so.String(), rep, rj, cl
}
