package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// BeforeMeasure runs between a step's warm-ups and its measured requests:
// every warm-up has ended before it, no measured request has started.
func TestBeforeMeasureHook(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.1)
	ts := simServer(t, sim.Config{Corpus: sc, BaseLatency: 5 * time.Millisecond})
	dir := filepath.Join(t.TempDir(), "run")
	at := map[string]int64{}
	hooks := Hooks{BeforeMeasure: func(_ context.Context, d *Dir, s Step) error {
		at[fmt.Sprintf("c%d-r%d", s.Concurrency, s.Repeat)] = d.Offset(time.Now())
		return nil
	}}
	if _, err := Run(context.Background(), dir, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{1, 3}, Requests: []int{4, 6}, Repeats: 2}, WithHooks(hooks)); err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if len(at) != 4 {
		t.Fatalf("BeforeMeasure called for %v, want 4 steps", at)
	}
	for step, ns := range at {
		recs := l.files["records/a/"+step+".jsonl"]
		if len(recs) == 0 {
			t.Fatalf("no records for %s", step)
		}
		for _, r := range recs {
			if (r.Phase == schemas.PhaseWarmup && r.EndNs > ns) || (r.Phase == schemas.PhaseMeasure && r.StartNs < ns) {
				t.Errorf("%s: hook at %d, %s request %d ran %d..%d", step, ns, r.Phase, r.Seq, r.StartNs, r.EndNs)
			}
		}
	}
}
