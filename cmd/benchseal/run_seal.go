package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// checkRunSeal refuses, before anything is measured, a --seal that would
// fail at the end.
func checkRunSeal(f *runFlags) error {
	if f.seal == "" {
		if f.key != "" {
			return usageErrorf("--key signs the bundle of --seal: give --seal OUT.tar.zst too")
		}
		return nil
	}
	if _, err := os.Lstat(f.seal); err == nil {
		return withHint(usageErrorf("--seal %s already exists", f.seal), "seal never overwrites evidence; choose another --seal")
	}
	if fi, err := os.Stat(filepath.Dir(f.seal)); err != nil || !fi.IsDir() {
		return usageErrorf("--seal %s: its folder %s does not exist", f.seal, filepath.Dir(f.seal))
	}
	absRun, err1 := filepath.Abs(f.out)
	absOut, err2 := filepath.Abs(f.seal)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absRun, absOut); err == nil && filepath.IsLocal(rel) {
			return usageErrorf("--seal %s is inside the run directory %s", f.seal, f.out)
		}
	}
	return nil
}

// sealRun seals a finished run as the seal command does (one code path:
// temp file and link, wording, what is printed on stdout), with the signer
// loaded before the sweep.
func sealRun(ctx context.Context, e *env, dir, out, key string, signer *bundle.Signer, tf *tsaFlags) error {
	opts := bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: fingerprint.Version()}}
	if tf != nil && tf.tsa != "" {
		chain, err := tf.chain()
		if err != nil {
			return err
		}
		opts.Timestamp = session.SealTimestamp(tf.tsa, chain, nil)
	}
	return sealWith(ctx, e, dir, out, key, signer, opts, false)
}
