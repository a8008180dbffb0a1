package verify_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/verify"
)

// withoutStageFamilies drops every stage histogram of the engine table
// from a scrape, as a server that exposes none would answer.
func withoutStageFamilies(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		drop := false
		for _, f := range engine.StageFamilies {
			drop = drop || strings.Contains(l, f.Family)
		}
		if !drop {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestServerNotObserved: without stage histograms the server is no
// witness: check 9 says "not observed" (SKIP, never PASS, never FAIL),
// names what it looked for and how to get it; claims carry no server
// block.
func TestServerNotObserved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, full.get(t), dir)
	proms, err := filepath.Glob(filepath.Join(dir, "servers", "*", "metrics", "*.prom"))
	must(t, err)
	for _, p := range proms {
		rel, _ := filepath.Rel(dir, p)
		editFile(t, dir, filepath.ToSlash(rel), withoutStageFamilies)
	}
	refresh(t, dir)
	rep, err := verify.Dir(t.Context(), dir, verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckServer)
	if c.Status != verify.Skip || !strings.HasPrefix(c.Summary, "not observed: 8 of 8 steps: the server's /metrics exposes none of ") ||
		!strings.Contains(c.Summary, "vllm:request_queue_time_seconds") || !strings.Contains(c.Summary, "keep the server's /metrics reachable") {
		t.Errorf("check 9 %s %q", c.Status, c.Summary)
	}
	if cc := rep.Check(verify.CheckClaims); cc.Status != verify.Pass {
		t.Errorf("check 6 %s %q", cc.Status, cc.Summary)
	}
	if !rep.OK() {
		t.Error("a run whose server exposes no stage histogram does not verify")
	}
}

// TestServerWitnessHeld: the untouched run's server block is recomputed
// and held to the records at every step.
func TestServerWitnessHeld(t *testing.T) {
	rep, err := verify.Dir(t.Context(), full.get(t), verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckServer)
	if c.Status != verify.Pass || !strings.HasPrefix(c.Summary, "8 of 8 steps: the server counted every successful measured request and its times (queue, prefill, decode, inference, ttft, e2e) fit inside") {
		t.Errorf("check 9 %s %q %+v", c.Status, c.Summary, c.Findings)
	}
}
