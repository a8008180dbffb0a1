package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
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
// telemetry exactly as a verifier does (claims.LoadDirTelemetry,
// claims.Compute with telemetry) and compares every figure after a JSON
// round trip, which is how claims.json is written. A mismatch is a
// *ClaimsMismatchError. A run directory without claims.json is not
// checked (nil): sealing names what is missing itself.
func CheckClaims(runDir string) error {
	raw, err := os.ReadFile(filepath.Join(runDir, schemas.ClaimsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	run, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(runDir))
	if err != nil {
		return fmt.Errorf("claims.json cannot be recomputed from the records: %w", err)
	}
	q, err := task.ClaimsOption(&run)
	if err != nil {
		return fmt.Errorf("claims.json cannot be recomputed from the records: %w", err)
	}
	got, err := claims.Compute(run, recs, claims.WithTelemetry(tel), q)
	if err != nil {
		return fmt.Errorf("claims.json cannot be recomputed from the records: %w", err)
	}
	want, err := json.Marshal(got)
	if err != nil {
		return err
	}
	wf, wk, err := leaves(want)
	if err != nil {
		return err
	}
	sf, sk, err := leaves(raw)
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
	for _, k := range wk {
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

// leaves lists a JSON document's leaves as path -> literal, in document
// order, naming array elements by what identifies them in claims.json (a
// target's name, a level's concurrency, a repeat's number), as verify
// names them.
func leaves(doc []byte) (map[string]string, []string, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, nil, err
	}
	m := map[string]string{}
	var keys []string
	leaf := func(p, lit string) {
		if _, dup := m[p]; !dup {
			keys = append(keys, p)
		}
		m[p] = lit
	}
	var walk func(prefix, key string, v any)
	walk = func(prefix, key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			ks := make([]string, 0, len(x))
			for k := range x {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, k, x[k])
			}
			if len(x) == 0 {
				leaf(prefix, "{}")
			}
		case []any:
			seen := map[string]int{}
			for i, e := range x {
				name := elemName(key, i, e)
				if seen[name]++; seen[name] > 1 {
					name += "#" + strconv.Itoa(seen[name])
				}
				walk(prefix+"["+name+"]", "", e)
			}
			if len(x) == 0 {
				leaf(prefix, "[]")
			}
		default:
			lit, _ := json.Marshal(x)
			leaf(prefix, string(lit))
		}
	}
	walk("", "", v)
	return m, keys, nil
}

func elemName(key string, i int, v any) string {
	if o, ok := v.(map[string]any); ok {
		if t, ok := o["target"].(string); ok {
			return t
		}
		if c, ok := o["concurrency"].(json.Number); ok {
			return "c=" + c.String()
		}
		if n, ok := o["name"].(string); ok {
			return n
		}
	}
	if key == "repeats" {
		return "r=" + strconv.Itoa(i+1)
	}
	return strconv.Itoa(i)
}
