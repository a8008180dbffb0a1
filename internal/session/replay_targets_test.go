package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/schemas"
)

func TestTargetURLs(t *testing.T) {
	s := &Sealed{Run: schemas.Run{Targets: []schemas.Target{{Name: "a"}, {Name: "b"}}}}
	urls, err := s.TargetURLs([]string{"b=http://h:2", "a=https://h:1"})
	if err != nil || len(urls) != 2 || urls["a"] != "https://h:1" || urls["b"] != "http://h:2" {
		t.Fatalf("TargetURLs = %v, %v", urls, err)
	}
	var ue *UnknownTargetError
	if _, err := s.TargetURLs([]string{"c=http://h"}); !errors.As(err, &ue) || ue.Name != "c" ||
		err.Error() != `c: the sealed run has no target "c" (it has a, b)` {
		t.Errorf("unknown target: %v", err)
	}
	if _, err := s.TargetURLs([]string{"a=http://h", "a=http://g"}); !errors.Is(err, ErrTwice) {
		t.Errorf("a target twice: %v", err)
	}
	if _, err := s.TargetURLs([]string{"a=h"}); !errors.Is(err, bench.ErrNameURL) {
		t.Errorf("no scheme: %v", err)
	}
	if err := s.CheckTargets([]string{"b", "a"}); err != nil {
		t.Errorf("CheckTargets(b, a) = %v", err)
	}
	if err := s.CheckTargets([]string{"a", "z"}); !errors.As(err, &ue) || ue.Name != "z" {
		t.Errorf("CheckTargets(a, z) = %v", err)
	}
}

// MarkReplay records the sealed run's origin as it was when the hook was
// made, and a note naming the bundle (or the directory without one).
func TestMarkReplay(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &Sealed{Origin: schemas.ReplayOf{Source: "e.tar.zst", BundleSHA256: "abc", StartedAt: at}}
	h := s.MarkReplay()
	s.Origin.Source = "changed later"
	d := &bench.Dir{Run: &schemas.Run{}}
	if err := h.BeforeSweep(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if d.Run.ReplayOf == nil || d.Run.ReplayOf.Source != "e.tar.zst" || len(d.Run.Notes) != 1 ||
		d.Run.Notes[0] != "replay of bundle sha256:abc (sealed run started 2026-01-02T03:04:05Z)" {
		t.Errorf("run: replay_of %+v, notes %q", d.Run.ReplayOf, d.Run.Notes)
	}
	s.Origin = schemas.ReplayOf{Source: "rundir", StartedAt: at}
	d = &bench.Dir{Run: &schemas.Run{}}
	_ = s.MarkReplay().BeforeSweep(context.Background(), d)
	if len(d.Run.Notes) != 1 || d.Run.Notes[0] != "replay of run directory rundir (sealed run started 2026-01-02T03:04:05Z)" {
		t.Errorf("notes %q", d.Run.Notes)
	}
}
