package verify

// A sealed replay (benchseal replay --seal) signs its comparison with the
// run it re-ran in the predicate (schemas.PredicateReplay). Check 6 holds
// that comparison to the replay's own claims, recomputed from its records,
// and, given the original bundle (Options.Original), to the original's
// claims too: a comparison edited before signing ("reproduced" over
// figures that moved) fails.

import (
	"context"
	"fmt"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// original is the bundle Options.Original names, as read: its digest and
// claims, or why they could not be read (a finding, not an error of
// verify: the evidence given does not hold).
type original struct {
	path   string
	sha256 string
	claims *schemas.Claims
	err    error
}

// readOriginal reads the original's claims.json through Open. Its
// signature is not what vouches for it here: the replay's signed predicate
// names the original's bytes by SHA-256, and only a bundle with that digest
// is compared with (verify the original on its own to check its signer).
func readOriginal(ctx context.Context, path string) *original {
	o := &original{path: path}
	src, err := Open(ctx, path, OpenOptions{Keep: func(name string) bool { return name == schemas.ClaimsFile }, Unsigned: true})
	if err != nil {
		o.err = err
		return o
	}
	o.sha256 = src.SHA256
	b, ok := src.Docs[schemas.ClaimsFile]
	if !ok {
		o.err = fmt.Errorf("%s holds no %s", path, schemas.ClaimsFile)
		return o
	}
	var cl schemas.Claims
	if err := schemas.Decode("claims", b, &cl); err != nil {
		o.err = fmt.Errorf("%s: %s: %w", path, schemas.ClaimsFile, err)
		return o
	}
	o.claims = &cl
	return o
}

// checkReplay holds the predicate's replay comparison, if any, to got (the
// replay's claims recomputed from its records) and to the original's
// claims when given. It returns what the summary adds ("" when the bundle
// holds no sealed comparison).
func checkReplay(c *Check, ev *evidence, got schemas.Claims, no *notObserved) string {
	var p *schemas.PredicateReplay
	if ev.st != nil {
		p = ev.st.Predicate.Replay
	}
	if p == nil {
		if ev.original != nil {
			no.add("the original %s (this is not a sealed replay: its statement holds no comparison)", ev.original.path)
		}
		return ""
	}
	fail := func(format string, args ...any) {
		c.add(Finding{Status: Fail, Kind: KindReplay, Path: bundle.AttestationName, Reason: fmt.Sprintf(format, args...)})
	}
	// compare adds compareDocs' findings as replay findings.
	compare := func(doc string, want, have any) int {
		var scratch Check
		n := compareDocs(&scratch, bundle.AttestationName, doc, want, have)
		for _, f := range scratch.Findings {
			f.Kind = KindReplay
			c.add(f)
		}
		return n
	}
	ro := ev.run.ReplayOf
	switch {
	case ro == nil:
		fail("the predicate holds a replay comparison, but run.json names no run it replays (replay_of)")
	case ro.BundleSHA256 != p.Of.BundleSHA256 || ro.KeyFingerprint != p.Of.KeyFingerprint || ro.KeyPinned != p.Of.KeyPinned:
		fail("predicate.replay.of names bundle %q (key %q, pinned %t), run.json's replay_of bundle %q (key %q, pinned %t)",
			p.Of.BundleSHA256, p.Of.KeyFingerprint, p.Of.KeyPinned, ro.BundleSHA256, ro.KeyFingerprint, ro.KeyPinned)
	}
	tol := claims.ReplayTolerance(*p)
	what := fmt.Sprintf("%d figures, %s within %s %% (wer %g points)", len(p.Comparison), p.Verdict, fmtPercent(tol.Relative), tol.WERPoints)
	o := ev.original
	switch {
	case o == nil:
	case o.err != nil:
		fail("the original %s cannot be read: %v", o.path, o.err)
		o = nil
	case o.sha256 != p.Of.BundleSHA256:
		fail("the original given, %s (sha256 %s), is not the bundle the replay names (sha256 %s)", o.path, o.sha256, p.Of.BundleSHA256)
		o = nil
	}
	if o == nil {
		// The original's figures as the predicate says they were; the
		// replay's, the changes, verdicts and counts are held.
		no.add("the original's side of the replay comparison (its claims: give the original bundle, sha256 %s)", p.Of.BundleSHA256)
		if compare("predicate.replay", claims.ReplayPredicate(p.Of, tol, claims.Compare(claims.SealedSide(*p, got), got, tol)), *p) > 0 {
			return fmt.Sprintf("; the signed replay comparison (%s) does not follow from the replay's claims", what)
		}
		return fmt.Sprintf("; the signed replay comparison (%s) follows from the replay's claims", what)
	}
	names := map[string]bool{}
	for _, t := range ev.run.Targets {
		names[t.Name] = true
	}
	want := claims.Compare(claims.ForTargets(*o.claims, func(t string) bool { return names[t] }), got, tol)
	if n := compare("predicate.replay", claims.ReplayPredicate(p.Of, tol, want), *p); n > 0 {
		return fmt.Sprintf("; the signed replay comparison (%s) does not follow from the replay's and the original's claims (%d value(s) differ)", what, n)
	}
	return fmt.Sprintf("; the signed replay comparison (%s) recomputes from the replay's and the original's (%s) claims", what, o.path)
}

// fmtPercent words a fraction as a percentage without trailing zeros.
func fmtPercent(x float64) string { return fmt.Sprintf("%.6g", x*100) }
