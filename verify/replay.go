package verify

// A sealed replay (benchseal replay --seal) signs its comparison with the
// run it re-ran in the predicate (schemas.PredicateReplay). Check 6 holds
// that comparison to the replay's own claims, recomputed from its records,
// and, given the original bundle (Options.Original), to the original's
// claims too: a comparison edited before signing ("reproduced" over
// figures that moved) fails.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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

// OriginalError is an Options.Original that is not the bundle the
// replay's run.json names (replay_of.bundle_sha256), or cannot be read as a
// bundle: the caller gave the wrong file, so Bundle and Dir return it
// before any check runs rather than fail the replay for it. Named is ""
// when the replay re-ran a run directory (its replay_of names no bundle).
type OriginalError struct {
	Path   string
	SHA256 string // of the file given; "" when Err is set
	Named  string // replay_of.bundle_sha256
	Source string // replay_of.source: the bundle or run directory as the replay was given it
	Err    error  // why Path cannot be read as a bundle
}

func (e *OriginalError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("%s cannot be read as the original bundle: %v", e.Path, e.Err)
	case e.Named == "":
		return fmt.Sprintf("%s is not the bundle this replay names: it re-ran a run directory, not a bundle", e.Path)
	}
	return fmt.Sprintf("%s is not the bundle this replay names (sha256 %s, not %s)", e.Path, e.SHA256, e.Named)
}

func (e *OriginalError) Unwrap() error { return e.Err }

// matches says whether the original read is the bundle run names as the
// one it replays; nil when there is no original or run is no replay (check
// 6 then says the original was not used).
func (o *original) matches(run *schemas.Run) error {
	if o == nil || run == nil || run.ReplayOf == nil {
		return nil
	}
	named := run.ReplayOf.BundleSHA256
	switch {
	case o.err != nil:
		return &OriginalError{Path: o.path, Named: named, Source: run.ReplayOf.Source, Err: o.err}
	case o.sha256 != named:
		return &OriginalError{Path: o.path, SHA256: o.sha256, Named: named, Source: run.ReplayOf.Source}
	}
	return nil
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
	compare := func(want schemas.PredicateReplay) int { return compareReplay(c, want, *p) }
	ro := ev.run.ReplayOf
	switch {
	case ro == nil:
		fail("the predicate holds a replay comparison, but run.json names no run it replays (replay_of)")
	case ro.BundleSHA256 != p.Of.BundleSHA256 || ro.KeyFingerprint != p.Of.KeyFingerprint || ro.KeyPinned != p.Of.KeyPinned:
		fail("predicate.replay.of names bundle %q (key %q, pinned %t), run.json's replay_of bundle %q (key %q, pinned %t)",
			p.Of.BundleSHA256, p.Of.KeyFingerprint, p.Of.KeyPinned, ro.BundleSHA256, ro.KeyFingerprint, ro.KeyPinned)
	}
	tol := claims.ReplayTolerance(*p)
	env := replayEnvDiff(ev, fail)
	hw := env.HardwareDiffers()
	launched := launchDiffers(env)
	what := fmt.Sprintf("%d figures, %s within %s %% (wer %g points)", len(p.Comparison), p.Verdict, fmtPercent(tol.Relative), tol.QualityPoints)
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
		diffs := claims.Compare(claims.SealedSide(*p, got), got, tol)
		claims.MarkNotComparable(diffs, hw)
		if n := compare(claims.ReplayPredicate(p.Of, tol, diffs)); n > 0 {
			return fmt.Sprintf("; the signed replay comparison (%s) against the replay's claims: %d value(s) differ", what, n) + launched
		}
		return fmt.Sprintf("; the signed replay comparison (%s) follows from the replay's claims", what) + launched
	}
	names := map[string]bool{}
	for _, t := range ev.run.Targets {
		names[t.Name] = true
	}
	want := claims.Compare(claims.ForTargets(*o.claims, func(t string) bool { return names[t] }), got, tol)
	claims.MarkNotComparable(want, hw)
	if n := compare(claims.ReplayPredicate(p.Of, tol, want)); n > 0 {
		return fmt.Sprintf("; the signed replay comparison (%s) against the replay's and the original's claims: %d value(s) differ", what, n) + launched
	}
	return fmt.Sprintf("; the signed replay comparison (%s) recomputes from the replay's and the original's (%s) claims", what, o.path) + launched
}

// compareReplay adds a finding per value of the signed comparison have
// that differs from the recomputed want, each figure named by its target,
// level and metric; it returns how many there were.
func compareReplay(c *Check, want, have schemas.PredicateReplay) int {
	n := 0
	diff := func(field string, w, h any) {
		wj, hj := jsonLiteral(w), jsonLiteral(h)
		if wj == hj {
			return
		}
		n++
		e := &ClaimError{Doc: "predicate.replay", Field: field, Want: wj, Got: hj}
		c.add(Finding{Status: Fail, Kind: KindReplay, Path: bundle.AttestationName, Reason: e.Error(), Err: e})
	}
	diff("verdict", want.Verdict, have.Verdict)
	diff("differ", want.Differ, have.Differ)
	for i := range max(len(want.Comparison), len(have.Comparison)) {
		var w, h *schemas.ReplayFigure
		if i < len(want.Comparison) {
			w = &want.Comparison[i]
		}
		if i < len(have.Comparison) {
			h = &have.Comparison[i]
		}
		if w == nil || h == nil || w.Target != h.Target || w.Concurrency != h.Concurrency || w.Metric != h.Metric {
			diff(fmt.Sprintf("comparison[%d]", i), figureName(w), figureName(h))
			continue
		}
		name := figureName(w)
		diff(name+".sealed", w.Sealed, h.Sealed)
		diff(name+".replayed", w.Replayed, h.Replayed)
		diff(name+".change", w.Change, h.Change)
		diff(name+".change_unit", w.ChangeUnit, h.ChangeUnit)
		diff(name+".verdict", w.Verdict, h.Verdict)
		diff(name+".reason", w.Reason, h.Reason)
	}
	return n
}

// figureName names a figure as "comparison[a c=1 req_per_s]" ("" for none).
func figureName(f *schemas.ReplayFigure) string {
	if f == nil {
		return ""
	}
	m := f.Metric
	if m == "" {
		m = "(" + f.Reason + ")"
	}
	return fmt.Sprintf("comparison[%s c=%d %s]", f.Target, f.Concurrency, m)
}

// jsonLiteral is v as JSON ("null" for a nil pointer).
func jsonLiteral(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fmtPercent words a fraction as a percentage without trailing zeros.
func fmtPercent(x float64) string { return fmt.Sprintf("%.6g", x*100) }

// replayEnvDiff reads the replay's sealed environment diff
// (env/replay-diff.json): the hardware that differed makes a figure that
// moved NOT-COMPARABLE, in the replay as in this re-derivation. A replay
// sealed without the file compared on no hardware difference.
func replayEnvDiff(ev *evidence, fail func(string, ...any)) schemas.ReplayDiff {
	var d schemas.ReplayDiff
	if !ev.f.has(schemas.ReplayDiffFile) {
		return d
	}
	b, err := ev.f.read(schemas.ReplayDiffFile)
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil {
		fail("%s cannot be read: %v", schemas.ReplayDiffFile, err)
		return schemas.ReplayDiff{}
	}
	return d
}

// launchDiffers words, for the summary, the targets the replay started
// with another command than the sealed run did (the "launch command"
// rows of env/replay-diff.json that differ): its figures are those of
// that command's server. "" when there are none.
func launchDiffers(d schemas.ReplayDiff) string {
	var ts []string
	for _, r := range d.Rows {
		if r.Item == schemas.DiffItemLaunchCommand && r.State == schemas.DiffDiffers {
			ts = append(ts, r.Target)
		}
	}
	if len(ts) == 0 {
		return ""
	}
	return fmt.Sprintf("; the replay launched %s with another command than the sealed run (%s)", strings.Join(ts, ", "), schemas.ReplayDiffFile)
}
