package main

// replay --seal: the replay's run directory sealed like any run, with its
// comparison with the sealed run signed in the predicate.

import (
	"bytes"
	"context"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
)

// replaySealFlags registers --seal and --seal-key (--key stays the public
// key that checks the sealed run).
func replaySealFlags(cmd *cobra.Command, f *replayFlags) {
	cmd.Long += `

--seal OUT.tar.zst seals the replay's run directory when it ends, as run --seal
does (signed with --seal-key, or an ephemeral key without it; --key stays the
public key that checks the sealed run), whether or not the figures agree: the
signed statement's predicate then holds the comparison (predicate.replay: the
original bundle's SHA-256 and key fingerprint, the tolerance, every figure
with its change and verdict, and "reproduced" or "not reproduced"), so that a
reader can check "reproduced within 10 %" with benchseal verify, and with
verify --original ORIGINAL.tar.zst recompute it from both bundles. An
interrupted replay is not sealed (its run directory is kept).`
	cmd.Example += `
  benchseal replay claim.tar.zst --key team.pub --target vllm=http://10.0.0.5:8000 --out runs/replay --seal replay.tar.zst --seal-key me.key`
	cmd.Flags().StringVar(&f.seal, "seal", "", "seal the replay into `OUT`.tar.zst when it ends, with the comparison in the signed statement")
	cmd.Flags().StringVar(&f.sealKey, "seal-key", "", "sign the replay's bundle with `KEY` (a key file or KMS reference; default: an ephemeral key)")
}

// prepareReplaySeal refuses, before anything is measured, a --seal that
// would fail at the end, and loads the signer (a wrong password costs
// seconds, not the replay). nil without --seal.
func prepareReplaySeal(ctx context.Context, e *env, f *replayFlags) (*bundle.Signer, error) {
	if f.seal == "" {
		if f.sealKey != "" {
			return nil, usageErrorf("--seal-key signs the bundle of --seal: give --seal OUT.tar.zst too")
		}
		return nil, nil
	}
	if err := checkRunSeal(&runFlags{seal: f.seal, out: f.out}); err != nil {
		return nil, err
	}
	return loadSigner(ctx, e, f.sealKey)
}

// sealReplay seals the replay's run directory dir as run --seal does, with
// the comparison (diffs under tol, against origin) in the predicate.
func sealReplay(ctx context.Context, e *env, dir string, f *replayFlags, signer *bundle.Signer, origin schemas.ReplayOf, tol claims.Tolerance, diffs []claims.Difference) error {
	of := schemas.PredicateReplayOf{BundleSHA256: origin.BundleSHA256, KeyFingerprint: origin.KeyFingerprint, KeyPinned: origin.KeyPinned}
	pr := claims.ReplayPredicate(of, tol, diffs)
	opts := bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: fingerprint.Version()}, Replay: &pr}
	if !f.asJSON {
		return sealWith(ctx, e, dir, f.seal, f.sealKey, signer, opts, false)
	}
	// With --json, stdout is one JSON document: what seal prints there
	// (the bundle's SHA-256, the key) goes to stderr instead.
	var out bytes.Buffer
	e2 := *e
	e2.stdout = &out
	err := sealWith(ctx, &e2, dir, f.seal, f.sealKey, signer, opts, false)
	for line := range strings.Lines(out.String()) {
		infof(e.stderr, "%s", strings.TrimRight(line, "\n"))
	}
	return err
}
