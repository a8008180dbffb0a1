package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/testkit/testrun"
	"github.com/benchseal/benchseal/schemas"
)

// seal's claims check tolerates what verify tolerates: a run directory
// written before a family of figures existed (claims.LaterFamilies) has
// none of it and seals; one with part of a family removed was edited
// and does not.
func TestCheckClaimsOlderBuild(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := testrun.Write(context.Background(), filepath.Join(dir, "corpus"), run, testrun.Small); err != nil {
		t.Fatal(err)
	}
	if err := session.CheckClaims(run); err != nil {
		t.Fatalf("the run as written: %v", err)
	}
	edit := func(fn func(m *schemas.Metrics, first bool)) {
		p := filepath.Join(run, schemas.ClaimsFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c schemas.Claims
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		first := true
		for ti := range c.Targets {
			for li := range c.Targets[ti].Levels {
				l := &c.Targets[ti].Levels[li]
				for _, m := range append([]*schemas.Metrics{&l.Median, &l.Min, &l.Max}, ptrs(l.Repeats)...) {
					fn(m, first)
					first = false
				}
			}
		}
		b, _ = json.MarshalIndent(c, "", "  ")
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(func(m *schemas.Metrics, first bool) {
		if first {
			m.MeanInFlight = nil
		}
	})
	var me *session.ClaimsMismatchError
	if err := session.CheckClaims(run); !errors.As(err, &me) {
		t.Fatalf("one mean_in_flight removed: %v, want a mismatch", err)
	}
	edit(func(m *schemas.Metrics, _ bool) {
		m.MeanInFlight, m.FullConcurrencyShare, m.CacheHitsCounter = nil, nil, ""
	})
	if err := session.CheckClaims(run); err != nil {
		t.Errorf("claims of a build before the steady-state figures: %v", err)
	}
}

func ptrs(ms []schemas.Metrics) []*schemas.Metrics {
	out := make([]*schemas.Metrics, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}
