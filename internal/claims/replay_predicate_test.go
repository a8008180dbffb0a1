package claims

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// A sealed comparison is re-derived from its own figures and the replay's
// claims (SealedSide), however the two sides differ: a target or level on
// one side only, wer null on one side, a failed count, a fall beyond the
// tolerance. Editing a verdict, a change or a replayed value breaks it.
func TestSealedSideRederives(t *testing.T) {
	sealed := claimsOf(
		schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{
			level(1, 10, 0.100, 16, 0, f64(0.05)), level(4, 40, 0.200, 14, 2, nil), level(8, 50, 0.3, 16, 0, nil)}},
		schemas.TargetClaims{Target: "gone", Levels: []schemas.LevelClaims{level(1, 9, 0.1, 16, 0, nil)}})
	replayed := claimsOf(
		schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{
			level(1, 2, 0.500, 16, 0, f64(0.07)), level(4, 41, 0.190, 16, 0, f64(0.01)), level(16, 60, 0.4, 16, 0, nil)}},
		schemas.TargetClaims{Target: "new", Levels: []schemas.LevelClaims{level(1, 9, 0.1, 16, 0, nil)}})
	tol := DefaultTolerance
	of := schemas.PredicateReplayOf{BundleSHA256: "ab", KeyFingerprint: "sha256:cd"}
	p := ReplayPredicate(of, tol, Compare(sealed, replayed, tol))
	if p.Verdict != schemas.NotReproduced || p.Differ == 0 || p.Differ != Differing(Compare(sealed, replayed, tol)) {
		t.Fatalf("verdict %q, differ %d", p.Verdict, p.Differ)
	}
	again := ReplayPredicate(of, tol, Compare(SealedSide(p, replayed), replayed, tol))
	if !reflect.DeepEqual(again, p) {
		t.Fatalf("re-derived:\n%+v\nwant:\n%+v", again.Comparison, p.Comparison)
	}
	for name, edit := range map[string]func(*schemas.PredicateReplay){
		"verdict":  func(p *schemas.PredicateReplay) { p.Comparison[0].Verdict = "OK" },
		"change":   func(p *schemas.PredicateReplay) { v := 0.0; p.Comparison[0].Change = &v },
		"replayed": func(p *schemas.PredicateReplay) { v := 10.0; p.Comparison[0].Replayed = &v },
	} {
		q := p
		q.Comparison = append([]schemas.ReplayFigure(nil), p.Comparison...)
		edit(&q)
		if got := ReplayPredicate(of, tol, Compare(SealedSide(q, replayed), replayed, tol)); reflect.DeepEqual(got, q) {
			t.Errorf("%s edited: still re-derives", name)
		}
	}
	same := ReplayPredicate(of, tol, Compare(sealed, sealed, tol))
	if same.Verdict != schemas.Reproduced || same.Differ != 0 {
		t.Errorf("a run against itself: %q, differ %d", same.Verdict, same.Differ)
	}
}

// A replay on other hardware: figures beyond the tolerance are
// NOT-COMPARABLE, the comparison's verdict "not comparable" (neither
// reproduced nor contradicted), and it re-derives when the verifier marks
// the same hardware; a target on one side only stays a DIFF.
func TestReplayPredicateOtherHardware(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.100, 16, 0, nil)}})
	slower := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 2, 0.500, 16, 0, nil)}})
	tol := DefaultTolerance
	of := schemas.PredicateReplayOf{BundleSHA256: "ab", KeyFingerprint: "sha256:cd"}
	hw := []string{"gpu model (sealed H100, replay A100)"}
	diffs := Compare(sealed, slower, tol)
	if n := MarkNotComparable(diffs, hw); n == 0 {
		t.Fatal("no figure marked not comparable")
	}
	p := ReplayPredicate(of, tol, diffs)
	if p.Verdict != schemas.NotComparableReplay || p.Differ != 0 {
		t.Fatalf("verdict %q, differ %d", p.Verdict, p.Differ)
	}
	again := Compare(SealedSide(p, slower), slower, tol)
	MarkNotComparable(again, hw)
	if got := ReplayPredicate(of, tol, again); !reflect.DeepEqual(got, p) {
		t.Fatalf("re-derived:\n%+v\nwant:\n%+v", got.Comparison, p.Comparison)
	}
	if got := ReplayPredicate(of, tol, Compare(SealedSide(p, slower), slower, tol)); reflect.DeepEqual(got, p) {
		t.Error("re-derived without the hardware difference: still equal")
	}
	extra := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 2, 0.500, 16, 0, nil)}},
		schemas.TargetClaims{Target: "new", Levels: []schemas.LevelClaims{level(1, 9, 0.1, 16, 0, nil)}})
	diffs = Compare(sealed, extra, tol)
	MarkNotComparable(diffs, hw)
	if p := ReplayPredicate(of, tol, diffs); p.Verdict != schemas.NotReproduced {
		t.Errorf("a target on the replay's side only, other hardware: %q, want %q", p.Verdict, schemas.NotReproduced)
	}
}

// A sealed comparison with an UNSTABLE figure (a p99 of 8 requests)
// names its tail rule, validates, and re-derives from its own figures;
// a comparison sealed before the rule (no tail_rule) re-derives with the
// DIFF it was sealed with.
func TestReplayPredicateUnstable(t *testing.T) {
	mk := func(p99 float64) schemas.Claims {
		l := level(1, 10, 0.1, 8, 0, nil)
		l.Median.LatencyP99S = ptr(p99)
		return claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{l}})
	}
	sealed, replayed := mk(0.200), mk(0.2204)
	tol := DefaultTolerance
	of := schemas.PredicateReplayOf{BundleSHA256: strings.Repeat("ab", 32), KeyFingerprint: "sha256:" + strings.Repeat("cd", 32)}
	p := ReplayPredicate(of, tol, Compare(sealed, replayed, tol))
	if p.Verdict != schemas.Reproduced || p.Differ != 0 || p.Tolerance.TailRule != TailRule || p.Comparison[3].Verdict != string(Unstable) {
		t.Fatalf("predicate %+v", p)
	}
	b, err := json.Marshal(schemas.Predicate{Replay: &p})
	if err != nil {
		t.Fatal(err)
	}
	// Only the replay is filled in: the rest of the predicate's errors are not this test's.
	if err := schemas.Validate("predicate", b); err != nil && strings.Contains(err.Error(), "/replay") {
		t.Errorf("the predicate's replay does not validate: %v", err)
	}
	if again := ReplayPredicate(of, ReplayTolerance(p), Compare(SealedSide(p, replayed), replayed, ReplayTolerance(p))); !reflect.DeepEqual(again, p) {
		t.Fatalf("re-derived:\n%+v\nwant:\n%+v", again, p)
	}
	// Sealed before the rule: the p99 was a DIFF, and so it re-derives.
	old := Tolerance{Relative: tol.Relative, QualityPoints: tol.QualityPoints, AllTails: true}
	q := ReplayPredicate(of, old, Compare(sealed, replayed, old))
	if q.Tolerance.TailRule != "" || q.Verdict != schemas.NotReproduced || q.Differ != 1 {
		t.Fatalf("old predicate %+v", q)
	}
	if again := ReplayPredicate(of, ReplayTolerance(q), Compare(SealedSide(q, replayed), replayed, ReplayTolerance(q))); !reflect.DeepEqual(again, q) {
		t.Fatalf("old re-derived:\n%+v\nwant:\n%+v", again, q)
	}
	// A DIFF edited into UNSTABLE under the old rule does not re-derive.
	q.Comparison[3].Verdict, q.Differ, q.Verdict = string(Unstable), 0, schemas.Reproduced
	if again := ReplayPredicate(of, ReplayTolerance(q), Compare(SealedSide(q, replayed), replayed, ReplayTolerance(q))); reflect.DeepEqual(again, q) {
		t.Error("an edited verdict re-derives")
	}
}
