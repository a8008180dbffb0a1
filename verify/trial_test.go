package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// A level that measures fewer requests than its concurrency can never
// have C in flight: check 7 says what it held it to, and names the level.
func TestPeakHeldFewerRequestsThanC(t *testing.T) {
	dir := t.TempDir()
	// 200 ms a request: all 4 start before the first ends, so the peak
	// is 4 and check 7 passes (a late worker goroutine on a loaded machine
	// can still make it a WARN "peak in-flight 3 of 4": then no summary
	// claims a peak, which is what this test is about).
	makeRun(t, runSpec{Clips: 2, Seconds: 0.5, Levels: []int{1, 8}, Requests: []int{4}, Repeats: 1, Latency: 200 * time.Millisecond},
		filepath.Join(dir, "corpus"), filepath.Join(dir, "run"))
	rep, err := verify.Dir(context.Background(), filepath.Join(dir, "run"), verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckProtocol)
	if c.Status == verify.Fail {
		t.Fatalf("check 7 %s: %+v", c.Status, c.Findings)
	}
	if strings.Contains(c.Summary, "peak in-flight == C,") {
		t.Errorf("summary %q claims peak in-flight == C", c.Summary)
	}
	if c.Status == verify.Pass && (!strings.Contains(c.Summary, "peak in-flight == min(C, measured requests)") ||
		!strings.Contains(c.Summary, "c=8 measures only 4 requests per repeat, fewer than C")) {
		t.Errorf("summary %q: want what held (min(C, requests)) and the level named", c.Summary)
	}
}

// The "not observable" warning is worded from the target's engine, as its
// /v1/models owned_by names it, never SGLang-Omni's words for a vLLM target.
func TestCacheNotObservableNamesEngine(t *testing.T) {
	dir := damagedRun(t, func(dir string) {
		var run schemas.Run
		b, err := os.ReadFile(filepath.Join(dir, "run.json"))
		must(t, err)
		must(t, json.Unmarshal(b, &run))
		for _, tc := range []struct{ target, owner string }{{"a", "vllm"}, {"b", "sglang-omni"}} {
			list, _ := json.Marshal(map[string]any{"object": "list", "data": []map[string]any{{"id": run.Targets[0].Model, "object": "model", "owned_by": tc.owner}}})
			writeJSONFile(t, dir, "servers/"+tc.target+"/probes-before.json", captureOf(tc.target, "before", schemas.Probe{Path: "/v1/models", Status: 200, Body: string(list)}))
		}
	})
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	must(t, err)
	var got []string
	for _, f := range rep.Check(verify.CheckFairness).Findings {
		got = append(got, f.Reason)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"cache hits not observable for a: its engine (vllm, as its /v1/models says) counts cache hits in vllm:mm_cache_hits_total",
		"cache hits not observable for b: its engine (sglang-omni, as its /v1/models says) exposes no cache counter",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no finding %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, "SGLang-Omni caches") {
		t.Errorf("SGLang-Omni's words for every target:\n%s", all)
	}
}

// A damaged archive skips check 2, yet the report says the key the caller
// pinned: --json must not print "pinned": false when --key was given.
func TestPinnedOnDamagedArchive(t *testing.T) {
	s := testSigner(t)
	b := seal(t, goodDir(t), s, bundle.SealOptions{})
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(b[:len(b)/2]), verify.Options{PublicKey: s.PublicKey()})
	must(t, err)
	if rep.Check(verify.CheckArchive).Status != verify.Fail {
		t.Fatalf("check 1 %s on a truncated archive", rep.Check(verify.CheckArchive).Status)
	}
	fp, err := bundle.Fingerprint(s.PublicKey())
	must(t, err)
	if !rep.Pinned || rep.Key != fp {
		t.Errorf("pinned %v key %q, want true %q", rep.Pinned, rep.Key, fp)
	}
	out, err := json.Marshal(rep)
	must(t, err)
	if !bytes.Contains(out, []byte(`"pinned":true`)) || !bytes.Contains(out, []byte(`"unchecked":0`)) {
		t.Errorf("JSON %s", out)
	}
}
