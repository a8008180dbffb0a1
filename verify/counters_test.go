package verify_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/verify"
)

// withoutRequestCounters drops vLLM's request counter and e2e histogram
// from a scrape (the cache counters stay: steps.jsonl holds them).
func withoutRequestCounters(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "vllm:request_success") || strings.Contains(l, "vllm:e2e_request_latency") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// omniCounter is SGLang-Omni's HTTP request counter as its middleware
// renders it (sglang_omni/serve/metrics.py@0641581e): every route but
// /metrics, by method, route and status.
func omniCounter(health, transcriptions, shed int) string {
	const l = `method="%s",model_name="Qwen/Qwen3-ASR-1.7B",route="%s",status="%s"`
	return "# HELP sglang_omni_http_requests_total Total number of HTTP requests handled by the Omni API server.\n" +
		"# TYPE sglang_omni_http_requests_total counter\n" +
		fmt.Sprintf("sglang_omni_http_requests_total{"+l+"} %d.0\n", "GET", "/health", "200", health) +
		fmt.Sprintf("sglang_omni_http_requests_total{"+l+"} %d.0\n", "POST", "/v1/audio/transcriptions", "200", transcriptions) +
		fmt.Sprintf("sglang_omni_http_requests_total{"+l+"} %d.0\n", "POST", "/v1/audio/transcriptions", "503", shed)
}

// TestRequestCounterSGLangOmni: with SGLang-Omni's counter, only the
// transcription route's HTTP 200 answers are compared with the records:
// /health polled hundreds of times in the step is not "other traffic",
// and two answers fewer than the records is a FAIL.
func TestRequestCounterSGLangOmni(t *testing.T) {
	const step = "records/a/c3-r1.jsonl" // 3 warm-ups and 6 measured, all HTTP 200
	for _, tc := range []struct {
		name   string
		served int
		want   verify.Status
		text   string
	}{
		{"exact", 9, verify.Pass, ""},
		{"short", 7, verify.Fail, "the server counted 7 requests (sglang_omni_http_requests_total grew from 100 to 107), yet the records show 9 that succeeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, full.get(t), dir)
			editFile(t, dir, "servers/a/metrics/c3-r1-before.prom", func(s string) string {
				return withoutRequestCounters(s) + omniCounter(10, 100, 4)
			})
			editFile(t, dir, "servers/a/metrics/c3-r1-after.prom", func(s string) string {
				return withoutRequestCounters(s) + omniCounter(510, 100+tc.served, 9)
			})
			rep, err := verify.Dir(t.Context(), dir, verify.Options{})
			must(t, err)
			c := rep.Check(verify.CheckProtocol)
			// A loaded host leaves the run's own WARNs (steady state, a
			// saturated client): PASS accepts them (passes).
			if c.Status != tc.want && (tc.want != verify.Pass || !passes(*c)) {
				t.Fatalf("check 7 %s, want %s: %+v", c.Status, tc.want, c.Findings)
			}
			found := tc.text == ""
			for _, f := range c.Findings {
				found = found || (f.Path == "servers/a/metrics/c3-r1-after.prom" && strings.Contains(f.Reason, tc.text))
			}
			if !found {
				t.Errorf("no finding %q: %+v (step %s)", tc.text, c.Findings, step)
			}
		})
	}
}

// TestRequestCounterNotObserved: scrapes without any request counter
// leave the comparison not observed, said in the summary, never a pass
// of it, nor a failure.
func TestRequestCounterNotObserved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, full.get(t), dir)
	proms, err := filepath.Glob(filepath.Join(dir, "servers", "*", "metrics", "*.prom"))
	must(t, err)
	for _, p := range proms {
		rel, _ := filepath.Rel(dir, p)
		editFile(t, dir, filepath.ToSlash(rel), withoutRequestCounters)
	}
	rep, err := verify.Dir(t.Context(), dir, verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckProtocol)
	if !passes(*c) || !strings.Contains(c.Summary, "not observed: the server's request counts for 8 of 8 steps") {
		t.Errorf("check 7 %s %q: want PASS with the counts not observed", c.Status, c.Summary)
	}
	// The fixture without telemetry at all: windows and counts not observed.
	_, small := good.get(t)
	rep, err = verify.Dir(t.Context(), small, verify.Options{})
	must(t, err)
	if s := rep.Check(verify.CheckProtocol).Summary; !strings.Contains(s, "not observed: step windows (no telemetry/steps.jsonl)") {
		t.Errorf("check 7 of a run without telemetry: %q", s)
	}
	if s := rep.Check(verify.CheckClaims).Summary; !strings.Contains(s, "not observed: cache hits (no telemetry/steps.jsonl)") {
		t.Errorf("check 6 of a run without telemetry: %q", s)
	}
}

// TestWarmupOnce: a run with the seed client's schedule (warm-ups before
// each level's first repeat only, recorded as warmup_once) verifies: its
// repeats 2.. have no warm-ups, and the variants continue from repeat 1's.
func TestWarmupOnce(t *testing.T) {
	spec := smallRun
	spec.WarmupOnce, spec.Repeats = true, 3
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "corpus"), 0o755))
	makeRun(t, spec, filepath.Join(dir, "corpus"), filepath.Join(dir, "run"))
	rep, err := verify.Dir(t.Context(), filepath.Join(dir, "run"), verify.Options{})
	must(t, err)
	for _, id := range []int{verify.CheckSchemas, verify.CheckVariants, verify.CheckClaims, verify.CheckProtocol} {
		if c := rep.Check(id); !passes(*c) {
			t.Errorf("check %d %s: %s %+v", id, c.Name, c.Status, c.Findings)
		}
	}
}

// runtimeCounter is SGLang-Omni's prometheus_client request counter
// (sglang_omni/metrics/runtime.py@ee5df70a): every ASR request accepted,
// then once more by how it ended; no route label.
func runtimeCounter(completed, rejected int) string {
	return "# HELP sglang_omni:asr_requests_total ASR HTTP requests by terminal status.\n" +
		"# TYPE sglang_omni:asr_requests_total counter\n" +
		fmt.Sprintf("sglang_omni:asr_requests_total{status=\"accepted\"} %d.0\n", completed+rejected) +
		fmt.Sprintf("sglang_omni:asr_requests_total{status=\"completed\"} %d.0\n", completed) +
		fmt.Sprintf("sglang_omni:asr_requests_total{status=\"rejected\"} %d.0\n", rejected)
}

// TestRequestCounterSGLangOmniRuntime: SGLang-Omni's newer design is
// read too: its completed requests are held to the records' successes
// (fewer is a FAIL), and its rejected ones to the records' sheds (more
// refusals than shed records: other traffic, a WARN).
func TestRequestCounterSGLangOmniRuntime(t *testing.T) {
	for _, tc := range []struct {
		name                string
		completed, rejected int
		want                verify.Status
		text                string
	}{
		{"exact", 9, 0, verify.Pass, ""},
		{"short", 7, 0, verify.Fail, "the server counted 7 requests (sglang_omni:asr_requests_total grew from 100 to 107), yet the records show 9 that succeeded"},
		{"refusals-unrecorded", 9, 3, verify.Warn, `the server counted 3 refusals (sglang_omni:asr_requests_total{status="rejected"}), the records 0 shed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, full.get(t), dir)
			editFile(t, dir, "servers/a/metrics/c3-r1-before.prom", func(s string) string {
				return withoutRequestCounters(s) + runtimeCounter(100, 4)
			})
			editFile(t, dir, "servers/a/metrics/c3-r1-after.prom", func(s string) string {
				return withoutRequestCounters(s) + runtimeCounter(100+tc.completed, 4+tc.rejected)
			})
			rep, err := verify.Dir(t.Context(), dir, verify.Options{})
			must(t, err)
			c := rep.Check(verify.CheckProtocol)
			if c.Status != tc.want && !(passes(*c) && (tc.want == verify.Pass || tc.want == verify.Warn)) {
				t.Fatalf("check 7 %s, want %s: %+v", c.Status, tc.want, c.Findings)
			}
			found := tc.text == ""
			for _, f := range c.Findings {
				found = found || (f.Path == "servers/a/metrics/c3-r1-after.prom" && strings.Contains(f.Reason, tc.text))
			}
			if !found {
				t.Errorf("no finding %q: %+v", tc.text, c.Findings)
			}
		})
	}
}
