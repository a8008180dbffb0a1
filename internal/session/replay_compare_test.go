package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/testkit/testrun"
	"github.com/benchseal/benchseal/schemas"
)

// TestSealedCompare: a replay with the sealed claims reproduces them;
// one whose throughput doubled differs, over the replayed targets only;
// on other hardware the same change is not comparable.
func TestSealedCompare(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := testrun.Write(context.Background(), filepath.Join(dir, "corpus"), run, testrun.Small); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(run, schemas.ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sealed schemas.Claims
	if err := json.Unmarshal(b, &sealed); err != nil {
		t.Fatal(err)
	}
	s := &session.Sealed{Claims: sealed}
	tol := claims.Tolerance{Relative: 0.5, QualityPoints: 1}
	both := []bench.Target{{Name: "a"}, {Name: "b"}}
	if c := s.Compare(sealed, both, tol, schemas.ReplayDiff{}); !c.OK() || c.Differ != 0 || len(c.Diffs) == 0 {
		t.Fatalf("the sealed claims against themselves: %+v", c)
	}
	var faster schemas.Claims
	json.Unmarshal(b, &faster)
	for i := range faster.Targets {
		for j := range faster.Targets[i].Levels {
			l := &faster.Targets[i].Levels[j]
			l.Median.ReqPerS *= 2
			for k := range l.Repeats {
				l.Repeats[k].ReqPerS *= 2
			}
		}
	}
	all := s.Compare(faster, both, tol, schemas.ReplayDiff{})
	// A replay of a alone has a's claims alone; the sealed run's b is
	// left out, not counted missing.
	gotA := claims.ForTargets(faster, func(name string) bool { return name == "a" })
	onlyA := s.Compare(gotA, []bench.Target{{Name: "a"}}, tol, schemas.ReplayDiff{})
	if all.OK() || all.Differ == 0 || onlyA.Differ == 0 || onlyA.Differ >= all.Differ {
		t.Errorf("doubled throughput: %d differ over both targets, %d over a alone", all.Differ, onlyA.Differ)
	}
	for _, d := range onlyA.Diffs {
		if d.Target != "a" {
			t.Errorf("target %s compared though only a was replayed", d.Target)
		}
	}
	hw := schemas.ReplayDiff{Rows: []schemas.ReplayDiffRow{{Item: "gpu model", Hardware: true, Sealed: "H100", Replay: "A100", State: schemas.DiffDiffers}}}
	if c := s.Compare(faster, both, tol, hw); c.OK() || c.NotComparable == 0 || c.Differ != 0 {
		t.Errorf("on other hardware: %d not comparable, %d differ", c.NotComparable, c.Differ)
	}
}
