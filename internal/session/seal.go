package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/schemas"
)

// SigstoreSuffix names the Sigstore bundle Seal writes beside out.
const SigstoreSuffix = ".sigstore.json"

// Seal seals the run directory runDir into out with s: into a temporary
// file beside out, linked into place at the end (newfile.Publish), so a
// failure leaves nothing and a bundle that appeared meanwhile is never
// replaced (the error wraps fs.ErrExist). With sigstore it also writes
// out+SigstoreSuffix.
func Seal(ctx context.Context, runDir, out string, s *bundle.Signer, opts bundle.SealOptions, sigstore bool) (*bundle.SealResult, error) {
	dir, base := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	res, err := bundle.Seal(ctx, tmp, runDir, s, opts)
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	var sig []byte
	if sigstore {
		if sig, err = bundle.SigstoreBundle(res.Envelope, res.Fingerprint); err != nil {
			return nil, err
		}
	}
	if err := newfile.Publish(tmp.Name(), out); err != nil {
		return nil, err
	}
	if sigstore {
		if err := newfile.Write(out+SigstoreSuffix, sig, 0o644); err != nil {
			os.Remove(out)
			return nil, err
		}
	}
	return res, nil
}

// WriteMissingClaims computes claims.json of an incomplete run that has
// none (a run ended by a second Ctrl-C exits before writing it), from the
// records that exist, the way the runner and a verifier compute it, and
// returns whether it wrote one and from how many records. A run that has
// claims.json, or a complete one, is left as it is: evidence is never
// rewritten.
func WriteMissingClaims(runDir string) (written bool, records int, err error) {
	path := filepath.Join(runDir, schemas.ClaimsFile)
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	b, err := os.ReadFile(filepath.Join(runDir, schemas.RunFile))
	if err != nil {
		return false, 0, nil // sealing names the missing run.json itself
	}
	var run schemas.Run
	if json.Unmarshal(b, &run) != nil || run.Complete {
		return false, 0, nil
	}
	_, recs, cl, err := claims.RecomputeDir(os.DirFS(runDir))
	if err != nil {
		return false, 0, fmt.Errorf("claims.json is missing and cannot be computed from the records: %w", err)
	}
	if err := newfile.WriteJSON(path, cl); err != nil {
		return false, 0, err
	}
	return true, len(recs), nil
}
