package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// writeMissingClaims computes claims.json of an incomplete run that has
// none (a run ended by a second Ctrl-C exits before writing it), from the
// records that exist, the way the runner and a verifier compute it. A run
// that has claims.json, or a complete one, is left as it is: evidence is
// never rewritten.
func writeMissingClaims(e *env, runDir string) error {
	path := filepath.Join(runDir, "claims.json")
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(runDir, "run.json"))
	if err != nil {
		return nil // seal names the missing run.json itself
	}
	var run schemas.Run
	if json.Unmarshal(b, &run) != nil || run.Complete {
		return nil
	}
	run, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(runDir))
	if err != nil {
		return fmt.Errorf("claims.json is missing and cannot be computed from the records: %w", err)
	}
	cl, err := claims.Compute(run, recs, claims.WithTelemetry(tel))
	if err != nil {
		return fmt.Errorf("claims.json is missing and cannot be computed from the records: %w", err)
	}
	if b, err = json.MarshalIndent(cl, "", "  "); err != nil {
		return err
	}
	if err := writeNew(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	infof(e.stderr, "wrote %s from the %d records of the interrupted run", path, len(recs))
	return nil
}
