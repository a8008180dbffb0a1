package main

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/spf13/cobra"
)

func init() { register(newCompareCmd) }

type compareFlags struct {
	keys, pairs  []string
	format       string
	tolerance    string
	werTolerance float64
}

func newCompareCmd(e *env) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare A.tar.zst B.tar.zst [--key KEY] [--pair A:x=B:y] [--format md|html|json]",
		Short: "set two verified bundles of the same protocol side by side",
		Long: `compare reads two sealed bundles of the same protocol (a claim and its replay,
two engines measured on different days, a server before and after a patch) and
sets them side by side: for each pair of targets and each level both have, the
ratio of the median throughputs (A over B) with its seeded bootstrap interval and
the verdict in the words of benchseal report's conclusion (a side that failed
more than 1 % of its requests or counted cache hits is not comparable,
overlapping repeats show no difference, one repeat claims no lead); then each
figure (req_per_s, rtfx, latency_p50_s, latency_p99_s, wer, succeeded, failed)
of B against A, DIFF beyond --tolerance (as replay judges them).

Each bundle must verify: it is opened through the hardened reader with its
signature and subjects checked, and every check of benchseal verify runs; a
bundle with a failing check is refused. --key KEY checks both signatures;
--key A=KEY or --key B=KEY one side's. Without a key for a side, its signature
is checked with the key the bundle carries (a warning: the signer is unpinned).

Bundles whose protocols differ are refused, naming every difference (levels,
requests, warm-ups, repeats, perturbation, streaming, task, the corpus's
digest, scoring). Targets are matched by name; --pair A:x=B:y compares A's
target x with B's target y instead (repeatable), for targets named
differently.

Markdown on stdout by default; --format html gives one self-contained page,
--format json the comparison as data. Exit status 0 when the bundles were
compared (whatever the verdict), 1 when a bundle is refused or the protocols
differ, 2 on a usage error.`,
		Example: `  benchseal compare claim.tar.zst replay.tar.zst --key team.pub
  benchseal compare vllm.tar.zst sglang.tar.zst --key A=vllm.pub --key B=sglang.pub --pair A:qwen=B:omni
  benchseal compare before.tar.zst after.tar.zst --format html > compare.html`,
		Args: exactArgs(2, "two bundles"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), e, &f, args[0], args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.keys, "key", nil, "public `KEY` both bundles must be signed with; A=KEY or B=KEY for one side (repeatable)")
	fl.StringArrayVar(&f.pairs, "pair", nil, "compare A's target x with B's target y, as A:x=B:y (repeatable; default: targets of the same name)")
	fl.StringVar(&f.format, "format", "md", "md, html or json")
	fl.StringVar(&f.tolerance, "tolerance", "10%", "a figure differs when the larger value exceeds the smaller by more than this, e.g. 10%")
	fl.Float64Var(&f.werTolerance, "wer-tolerance", claims.DefaultTolerance.QualityPoints, "largest change of wer that still agrees, in percentage points")
	return cmd
}

func runCompare(ctx context.Context, e *env, f *compareFlags, a, b string) error {
	switch f.format {
	case "md", "markdown", "html", "json":
	default:
		return usageErrorf("--format %q: want md, html or json", f.format)
	}
	rel, err := parsePercent("--tolerance", f.tolerance)
	if err != nil {
		return err
	}
	if f.werTolerance < 0 {
		return usageErrorf("--wer-tolerance %v: must be at least 0", f.werTolerance)
	}
	keys, err := compareKeys(f.keys)
	if err != nil {
		return err
	}
	pairs, err := comparePairs(f.pairs)
	if err != nil {
		return err
	}
	var (
		sides [2]report.CompareSide
		docs  [2]map[string][]byte
	)
	for i, path := range []string{a, b} {
		if sides[i], docs[i], err = loadCompareSide(ctx, e, "AB"[i:i+1], path, keys[i]); err != nil {
			return err
		}
	}
	c, err := report.Compare(sides[0], sides[1], pairs, claims.Tolerance{Relative: rel, QualityPoints: f.werTolerance, Figures: true})
	var (
		pe *report.ProtocolError
		pa *report.PairError
		te *report.TaskError
	)
	switch {
	case errors.As(err, &te):
		return withHint(usageErrorf("compare: %s and %s are runs of different tasks: %v", a, b, te),
			"compare sets side by side only runs of one task; compare each with a run of its own task")
	case errors.As(err, &pe):
		return withHint(fmt.Errorf("compare: %s and %s are not the same protocol: %s", a, b, strings.Join(pe.Differences, "; ")),
			"compare sets side by side only runs of one protocol; replay A's bundle to measure B's servers under it")
	case errors.As(err, &pa):
		return withHint(usageErrorf("compare: %v", pa), "pair targets named differently with --pair A:x=B:y")
	case err != nil:
		return fmt.Errorf("compare: %w", err)
	}
	switch f.format {
	case "html":
		err = c.HTML(e.stdout)
	case "json":
		err = c.WriteJSON(e.stdout)
	default:
		err = c.Markdown(e.stdout)
	}
	if err != nil {
		return err
	}
	warnEnvironment(e, sides, docs, c.Pairs)
	for _, p := range c.Pairs {
		if len(p.RequestDifferences) > 0 {
			warnf(e.stderr, "A:%s and B:%s sent different requests (%s): their figures compare different requests, not the servers alone",
				p.A, p.B, strings.Join(p.RequestDifferences, "; "))
		}
	}
	if c.Differ > 0 {
		infof(e.stderr, "%d figure(s) differ beyond the tolerance (%s, wer %g points)", c.Differ, percentText(rel), f.werTolerance)
	}
	return nil
}

// compareKeys reads --key: KEY for both sides, A=KEY or B=KEY for one.
func compareKeys(flags []string) ([2]string, error) {
	var keys [2]string
	var both string
	for _, k := range flags {
		side, key, ok := strings.Cut(k, "=")
		i := -1
		if ok {
			i = strings.Index("AB", side)
		}
		if !ok || len(side) != 1 || i < 0 {
			if both != "" {
				return keys, usageErrorf("--key %s and --key %s: one key for both bundles; name a side's key with A=KEY or B=KEY", both, k)
			}
			both = k
			continue
		}
		if key == "" || keys[i] != "" {
			return keys, usageErrorf("--key %s: want one %s=KEY", k, side)
		}
		keys[i] = key
	}
	for i := range keys {
		if keys[i] == "" {
			keys[i] = both
		}
	}
	return keys, nil
}

// comparePairs reads --pair A:x=B:y.
func comparePairs(flags []string) ([]report.Pair, error) {
	var out []report.Pair
	for _, p := range flags {
		l, r, ok := strings.Cut(p, "=")
		x, okA := strings.CutPrefix(l, "A:")
		y, okB := strings.CutPrefix(r, "B:")
		if !ok || !okA || !okB || x == "" || y == "" {
			return nil, usageErrorf("--pair %q: want A:x=B:y (target x of the first bundle, target y of the second)", p)
		}
		out = append(out, report.Pair{A: x, B: y})
	}
	return out, nil
}

// loadCompareSide opens one bundle through verify.Open (signature and
// subjects checked before anything is decoded), decodes its documents as
// report does, and runs verify's whole checklist: a bundle that does not
// verify is refused.
func loadCompareSide(ctx context.Context, e *env, side, path, key string) (report.CompareSide, map[string][]byte, error) {
	var cs report.CompareSide
	st, err := os.Stat(path)
	if err != nil {
		return cs, nil, fmt.Errorf("compare: %s: %w", path, unwrapPath(err))
	}
	if st.IsDir() {
		return cs, nil, withHint(usageErrorf("compare: %s is a run directory: nothing in it is signed", path), "seal it first with benchseal seal %s -o OUT.tar.zst", path)
	}
	var pub crypto.PublicKey
	if key != "" {
		if pub, err = bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) }); err != nil {
			return cs, nil, withHint(fmt.Errorf("compare: loading the key of %s: %w", side, err),
				"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
		}
	}
	src, err := verify.Open(ctx, path, verify.OpenOptions{Keep: report.Keeps, Optional: schemas.IsProbesBefore, PublicKey: pub})
	var (
		re *verify.RefusedError
		ke *verify.KeyError
		rd *verify.ReadError
	)
	switch {
	case errors.As(err, &re):
		return cs, nil, withHint(fmt.Errorf("compare: %s is refused: %w", path, re.Err), "run benchseal verify %s for every finding", path)
	case errors.As(err, &ke):
		return cs, nil, withHint(fmt.Errorf("compare: %s: %w", path, ke.Err), "give --key %s=KEY, the public key of whoever sealed it", side)
	case errors.As(err, &rd):
		return cs, nil, fmt.Errorf("compare: %s: %w", rd.Path, rd.Err)
	case err != nil:
		return cs, nil, fmt.Errorf("compare: %w", err)
	}
	if !src.KeyPinned {
		warnf(e.stderr, "no --key for %s: the signature of %s is checked with the key it carries, so the signer is unpinned (it proves the bundle intact, not who sealed it)", side, path)
	}
	in, err := reportDocs(src.Docs).input(e, path+": ", "bundle")
	if err != nil {
		return cs, nil, err
	}
	opts := verify.Options{PublicKey: pub, RenderReport: renderRunReport, RenderReportRules: report.RulesVersion}
	if t, err := fingerprint.Tool(); err == nil {
		opts.RenderReportTool = t.BinarySHA256
	}
	rep, err := verify.Path(ctx, path, opts)
	if err != nil {
		return cs, nil, fmt.Errorf("compare: verify %s: %w", path, err)
	}
	if !rep.OK() {
		var failed []string
		for _, c := range rep.Checks {
			if c.Status == verify.Fail || c.Status == verify.Unchecked {
				failed = append(failed, fmt.Sprintf("%d %s", c.ID, c.Name))
			}
		}
		return cs, nil, withHint(fmt.Errorf("compare: %s does not verify (%s)", path, strings.Join(failed, ", ")), "run benchseal verify %s for every finding", path)
	}
	return report.CompareSide{In: in, Path: path, BundleSHA256: src.SHA256, KeyFingerprint: src.KeyFingerprint, KeyPinned: src.KeyPinned}, src.Docs, nil
}
