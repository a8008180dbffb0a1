package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// TestPercentilesFlag: run --percentiles 50,90,99,99.9 records the list
// in run.json and claims.json's latency_percentiles; the bundle verifies,
// and a changed p99.9 in a run directory fails verify's claims check
// (verify recomputes it); the report's latency table heads its columns
// p50 p90 p99 p99.9; compare of the bundle with itself lists
// latency_p99_9_s, and a replay publishes and compares it too; export's
// claims table has a latency_p99_9_s column. A bad list is a usage error.
func TestPercentilesFlag(t *testing.T) {
	dir := t.TempDir()
	corpus, url := demoSim(t, dir, sim.Config{})
	for _, bad := range []string{"50,x", "101", "50,50", "-1"} {
		if code, _, stderr := runCLI(t, "run", "--target", "a="+url, "--corpus", corpus, "--percentiles", bad, "--out", filepath.Join(dir, "bad")); code != exitUsage || !strings.Contains(stderr, "--percentiles") {
			t.Errorf("--percentiles %s: exit %d\n%s", bad, code, stderr)
		}
	}
	rundir, bundle := filepath.Join(dir, "run"), filepath.Join(dir, "b.tar.zst")
	if code, _, stderr := runCLI(t, "run", "--target", "a="+url, "--corpus", corpus, "--concurrency", "1,2", "--requests", "10",
		"--repeats", "2", "--percentiles", "50,90,99,99.9", "--out", rundir, "--seal", bundle); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var run schemas.Run
	var cl schemas.Claims
	readJSON(t, filepath.Join(rundir, "run.json"), &run)
	readJSON(t, filepath.Join(rundir, "claims.json"), &cl)
	if !slices.Equal(run.Protocol.Percentiles, []float64{50, 90, 99, 99.9}) {
		t.Fatalf("run.json percentiles %v", run.Protocol.Percentiles)
	}
	for _, l := range cl.Targets[0].Levels {
		for _, m := range append(l.Repeats, l.Median, l.Min, l.Max) {
			if len(m.LatencyPercentiles) != 4 || m.LatencyPercentiles[3].P != 99.9 || m.LatencyPercentiles[3].LatencyS == nil ||
				*m.LatencyPercentiles[0].LatencyS != *m.LatencyP50S {
				t.Fatalf("c%d: latency_percentiles %+v", l.Concurrency, m.LatencyPercentiles)
			}
		}
	}
	if code, stdout, stderr := runCLI(t, "verify", bundle); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}

	// A changed p99.9 does not follow from the records.
	changed := filepath.Join(dir, "changed")
	if err := os.CopyFS(changed, os.DirFS(rundir)); err != nil {
		t.Fatal(err)
	}
	cj := filepath.Join(changed, "claims.json")
	b, _ := os.ReadFile(cj)
	i := bytes.Index(b, []byte(`"p": 99.9,`))
	if i < 0 {
		t.Fatalf("claims.json has no p99.9 entry:\n%s", b)
	}
	j := i + bytes.Index(b[i:], []byte(`"latency_s": `)) + len(`"latency_s": `)
	b = append(b[:j:j], append([]byte("9"), b[j:]...)...)
	os.WriteFile(cj, b, 0o644)
	if code, stdout, _ := runCLI(t, "verify", changed); code != 1 || !strings.Contains(stdout, "latency_percentiles") {
		t.Errorf("verify of a changed p99.9: exit %d, want 1 naming latency_percentiles\n%s", code, stdout)
	}

	code, md, stderr := runCLI(t, "report", bundle)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(md, "| p50 | p90 | p99 | p99.9 |") {
		t.Errorf("the report's latency table does not show the asked percentiles:\n%s", md)
	}
	code, cmp, stderr := runCLI(t, "compare", bundle, bundle, "--format", "json")
	if code != 0 || !strings.Contains(cmp, `"latency_p99_9_s"`) {
		t.Errorf("compare: exit %d, latency_p99_9_s compared: %v\n%s", code, strings.Contains(cmp, "latency_p99_9_s"), stderr)
	}
	// A replay publishes the sealed run's percentiles and compares them.
	rp := filepath.Join(dir, "replay")
	code, rout, stderr := runCLI(t, "replay", bundle, "-o", rp, "--tolerance", "100000%", "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", code, rout, stderr)
	}
	var rrun schemas.Run
	readJSON(t, filepath.Join(rp, "run.json"), &rrun)
	if !slices.Equal(rrun.Protocol.Percentiles, run.Protocol.Percentiles) || !strings.Contains(rout, "latency_p99_9_s") {
		t.Errorf("replay: percentiles %v, compared p99.9: %v", rrun.Protocol.Percentiles, strings.Contains(rout, "latency_p99_9_s"))
	}
	out := filepath.Join(dir, "csv")
	if code, _, stderr := runCLI(t, "export", bundle, "--format", "csv", "-o", out); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	fh, _ := os.Open(filepath.Join(out, "claims.csv"))
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := rows[0]; h[len(h)-1] != "latency_p99_9_s" || slices.Contains(h[:len(h)-1], "latency_p99_9_s") || rows[1][len(h)-1] == "" {
		t.Errorf("export's claims columns end %v, first row %v", h[len(h)-3:], rows[1][len(h)-1])
	}
}
