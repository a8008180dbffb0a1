package verify_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// One target on GPUs 0 and 5 of a two-GPU host: check 8 fails (it used to
// compare GPUs only between two targets, so this verified).
func TestOneTargetGPUIndex(t *testing.T) {
	dir := t.TempDir()
	corpus, runDir := filepath.Join(dir, "corpus"), filepath.Join(dir, "run")
	must(t, os.MkdirAll(corpus, 0o755))
	w := makeWAV(0.2, 1)
	must(t, os.WriteFile(filepath.Join(corpus, "a.wav"), w, 0o644))
	clips, err := bench.LoadCorpus(corpus)
	must(t, err)
	s, err := sim.New(sim.Config{Corpus: []sim.Clip{{Audio: w, Text: "x"}}})
	must(t, err)
	ts := httptest.NewServer(s)
	defer ts.Close()
	gpus := []int{0, 5}
	hooks := bench.Hooks{BeforeSweep: func(_ context.Context, d *bench.Dir) error {
		d.Run.Targets[0].GPUs = gpus
		g := schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, GPUs: []schemas.GPUDevice{
			{Index: 0, Name: "NVIDIA H200", Processes: []schemas.GPUProcess{}}, {Index: 1, Name: "NVIDIA H200", Processes: []schemas.GPUProcess{}}}}
		writeJSONFile(t, d.Path, "env/gpu.json", g)
		return nil
	}}
	_, err = bench.Run(context.Background(), runDir, bench.Plan{Targets: []bench.Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{1}, Requests: []int{2}, Repeats: 1}, bench.WithHooks(hooks))
	must(t, err)
	rep, err := verify.Dir(context.Background(), runDir, verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckFairness)
	// The one FAIL is the GPU index; this run scrapes no /metrics, so a
	// WARN "cache hits not observable" stands beside it.
	var fails []verify.Finding
	for _, f := range c.Findings {
		if f.Status == verify.Fail {
			fails = append(fails, f)
		}
	}
	if c.Status != verify.Fail || len(fails) != 1 || !strings.Contains(fails[0].Reason, "target a runs on GPU 5, which env/gpu.json does not list") {
		t.Errorf("fairness %s: %q %+v", c.Status, c.Summary, c.Findings)
	}
}
