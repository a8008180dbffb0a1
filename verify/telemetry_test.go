package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/verify"
)

// A run sampled once (a window far shorter than --sample-interval): the
// claims recompute equal, and check 6 says the telemetry was not
// observed instead of letting "recomputed equal" stand alone.
func TestTelemetryNotObservedSaid(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	must(t, os.MkdirAll(filepath.Join(dir, "corpus"), 0o755))
	makeRun(t, smallRun, filepath.Join(dir, "corpus"), runDir)
	must(t, os.MkdirAll(filepath.Join(runDir, "telemetry"), 0o755))
	must(t, os.WriteFile(filepath.Join(runDir, "telemetry/host.jsonl"),
		[]byte(`{"t_ns":0,"cpu_pct":null,"mem_used_bytes":1,"mem_total_bytes":2,"load1":0}`+"\n"), 0o644))
	// claims.json as the runner would have written it with this telemetry.
	run, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(runDir))
	must(t, err)
	cl, err := claims.Compute(run, recs, claims.WithTelemetry(tel))
	must(t, err)
	b, err := json.MarshalIndent(cl, "", "  ")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(runDir, "claims.json"), append(b, '\n'), 0o644))

	rep, err := verify.Dir(context.Background(), runDir, verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckClaims)
	want := "telemetry not observed (window shorter than --sample-interval) in 8 of 8 level/repeats (a c=1: 2 of 2 repeats, a c=3: 2 of 2 repeats, b c=1: 2 of 2 repeats and 1 more)"
	if c.Status != verify.Pass || !strings.HasSuffix(c.Summary, "; "+want) {
		t.Errorf("check 6: %s %q, want PASS ending %q", c.Status, c.Summary, want)
	}
}
