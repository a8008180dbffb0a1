package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
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

// A BeforeSweep hook that fails (a time-stamping authority that does not
// answer) aborts the run before its first request and removes what the
// run made: its directory and the parents it created, not the folder that
// was there (issue 36: the same command then failed on "must not exist").
// The same Run then succeeds.
func TestBeforeSweepFailureRemovesRun(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.1)
	var posts atomic.Int64
	s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		s.ServeHTTP(w, r)
	})
	base := t.TempDir()
	dir := filepath.Join(base, "new", "deeper", "run")
	p := Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips, Levels: []int{1}, Requests: []int{2}, Repeats: 1}
	dead := errors.New("time-stamping the plan: connection refused")
	var sawRun bool
	_, err = Run(context.Background(), dir, p, WithHooks(Hooks{BeforeSweep: func(_ context.Context, d *Dir) error {
		_, err := os.Stat(filepath.Join(d.Path, schemas.RunFile))
		sawRun = err == nil
		return dead
	}}))
	if !errors.Is(err, dead) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	if !sawRun {
		t.Error("the hook ran before run.json was written")
	}
	if _, err := os.Lstat(filepath.Join(base, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s left behind (%v)", filepath.Join(base, "new"), err)
	}
	if _, err := os.Stat(base); err != nil {
		t.Errorf("the folder that was there is gone: %v", err)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d requests sent before the hook's failure", n)
	}
	if _, err := Run(context.Background(), dir, p); err != nil {
		t.Fatalf("the same run again: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, schemas.RunFile)); err != nil {
		t.Error(err)
	}
}
