package session

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

// ClaimsMismatchError is a claims.json that does not follow from the run
// directory's records and telemetry: Field is the first differing figure
// in document order ("targets[a].levels[c=4].repeats[r=1].req_per_s"),
// Sealed what claims.json says and Recomputed what the records give (JSON
// literals, "" when absent).
type ClaimsMismatchError struct {
	Field, Sealed, Recomputed string
	Differ                    int // how many figures differ
}

func (e *ClaimsMismatchError) Error() string {
	switch {
	case e.Sealed == "":
		return fmt.Sprintf("claims.json does not follow from the records: %s is missing, the records give %s (%d figure(s) differ)", e.Field, e.Recomputed, e.Differ)
	case e.Recomputed == "":
		return fmt.Sprintf("claims.json does not follow from the records: %s is %s, but the records give no such value (%d figure(s) differ)", e.Field, e.Sealed, e.Differ)
	}
	return fmt.Sprintf("claims.json does not follow from the records: %s is %s, the records give %s (%d figure(s) differ)", e.Field, e.Sealed, e.Recomputed, e.Differ)
}

// CheckClaims recomputes claims.json of runDir from its records and
// telemetry exactly as a verifier does (claims.RecomputeDir) and compares every figure after a JSON
// round trip, which is how claims.json is written. A mismatch is a
// *ClaimsMismatchError. A family of fields a later build added
// (claims.LaterFamilies: steady-state figures, cache_hits_counter, ...)
// absent from the whole of claims.json is not one: the run was written
// before it, and verify says so. A run directory without claims.json is not
// checked (nil): sealing names what is missing itself.
func CheckClaims(runDir string) error {
	raw, err := os.ReadFile(filepath.Join(runDir, schemas.ClaimsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, _, got, err := claims.RecomputeDir(os.DirFS(runDir))
	if err != nil {
		return fmt.Errorf("claims.json cannot be recomputed from the records: %w", err)
	}
	want, err := json.Marshal(got)
	if err != nil {
		return err
	}
	wf, wk, err := claims.Leaves(want)
	if err != nil {
		return err
	}
	sf, sk, err := claims.Leaves(raw)
	if err != nil {
		return fmt.Errorf("claims.json: %w", err)
	}
	var first *ClaimsMismatchError
	n := 0
	note := func(field, sealed, recomputed string) {
		if n++; first == nil {
			first = &ClaimsMismatchError{Field: field, Sealed: sealed, Recomputed: recomputed}
		}
	}
	// A run directory written by a build that did not compute a family
	// (claims.LaterFamilies) has none of it: not a mismatch, as verify
	// tolerates it ("not computed by the build that sealed it").
	older := claims.Predates(sk)
	for _, k := range wk {
		if f := claims.LaterOf(k); f != nil && older[f.What] {
			continue
		}
		if s, ok := sf[k]; !ok || s != wf[k] {
			note(k, s, wf[k])
		}
	}
	for _, k := range sk {
		if _, ok := wf[k]; !ok {
			note(k, sf[k], "")
		}
	}
	if first != nil {
		first.Differ = n
		return first
	}
	return nil
}
