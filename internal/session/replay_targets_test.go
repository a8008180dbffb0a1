package session

import (
	"errors"
	"testing"

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
