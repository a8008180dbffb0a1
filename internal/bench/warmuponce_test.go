package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// The seed client's schedule: one warm-up pass over the corpus before a
// level's first repeat only, then one measured pass per repeat in corpus
// order; run.json records it.
func TestWarmupOnce(t *testing.T) {
	clips, sc := testCorpus(t, 3, 0.5)
	srv := simServer(t, sim.Config{Corpus: sc, BaseLatency: 5 * time.Millisecond})
	p := Plan{Targets: []Target{{Name: "a", URL: srv.URL}}, Corpus: clips, Levels: []int{2, 4},
		Requests: []int{3}, Passes: 1, Warmup: []int{3}, WarmupOnce: true, Repeats: 3, Seed: 7}
	dir, _, err := runPlan(t, p)
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if !l.run.Protocol.WarmupOnce {
		t.Error("run.json does not record warmup_once")
	}
	for _, c := range p.Levels {
		for rep := 1; rep <= 3; rep++ {
			var warm []string
			var meas []string
			for _, r := range l.files[fmt.Sprintf("records/a/c%d-r%d.jsonl", c, rep)] {
				if r.Phase == schemas.PhaseWarmup {
					warm = append(warm, r.Clip)
				} else {
					meas = append(meas, r.Clip)
				}
			}
			want := 0
			if rep == 1 {
				want = 3
			}
			if len(warm) != want || len(meas) != 3 {
				t.Errorf("c=%d r=%d: %d warm-ups, %d measured; want %d and 3", c, rep, len(warm), len(meas), want)
			}
		}
	}
}
