package main

import (
	"path/filepath"

	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// writeMissingClaims writes claims.json of an interrupted run that has
// none (session.WriteMissingClaims) and says so.
func writeMissingClaims(e *env, runDir string) error {
	written, n, err := session.WriteMissingClaims(runDir)
	if written {
		infof(e.stderr, "wrote %s from the %d records of the interrupted run", filepath.Join(runDir, schemas.ClaimsFile), n)
	}
	return err
}
