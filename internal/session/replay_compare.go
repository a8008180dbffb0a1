package session

import (
	"slices"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// ReplayComparison is a replay's claims held against the sealed run's.
type ReplayComparison struct {
	Diffs  []claims.Difference      // every figure of the replayed targets, sealed vs replayed
	Probes []claims.ProbeComparison // the cache probes', where both made one
	// Differ counts the figures beyond the tolerance; NotComparable those
	// that moved on other hardware (neither reproduced nor contradicted);
	// Unstable the percentiles of too few requests to judge.
	Differ, NotComparable, Unstable int
}

// OK is whether the replay reproduces the sealed claims: no figure
// differs and none is left not comparable.
func (c ReplayComparison) OK() bool { return c.Differ == 0 && c.NotComparable == 0 }

// Compare holds a replay's claims (got) against the sealed run's, over
// the targets replayed: a figure beyond tol differs, unless env (the
// replay's environment diff) says the hardware changed, when it is not
// comparable (claims.MarkNotComparable).
func (s *Sealed) Compare(got schemas.Claims, targets []bench.Target, tol claims.Tolerance, env schemas.ReplayDiff) ReplayComparison {
	want := claims.ForTargets(s.Claims, func(name string) bool {
		return slices.ContainsFunc(targets, func(t bench.Target) bool { return t.Name == name })
	})
	diffs := claims.Compare(want, got, tol)
	c := ReplayComparison{Diffs: diffs, NotComparable: claims.MarkNotComparable(diffs, env.HardwareDiffers())}
	c.Differ, c.Unstable = claims.Differing(diffs), claims.Unstables(diffs)
	c.Probes = claims.CompareProbes(want, got)
	return c
}
