package verify_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func keepDocs(name string) bool {
	return name == schemas.RunFile || name == schemas.ClaimsFile || schemas.IsInput(name)
}

// Open returns the kept documents of a bundle only after its signature and
// subjects are checked, with the bundle's digest and the key's fingerprint;
// records stream through the callback and are never kept.
func TestOpenBundle(t *testing.T) {
	s := testSigner(t)
	// An entry nobody keeps must still be read to its end and hashed.
	dir := damagedRun(t, func(dir string) { must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not kept\n"), 0o644)) })
	b := seal(t, dir, s, bundle.SealOptions{})
	file := filepath.Join(t.TempDir(), "b.tar.zst")
	must(t, os.WriteFile(file, b, 0o644))
	var records []string
	src, err := verify.Open(context.Background(), file, verify.OpenOptions{Keep: keepDocs, PublicKey: s.PublicKey(),
		Records: func(name string, r io.Reader) error {
			records = append(records, name)
			_, err := io.Copy(io.Discard, r)
			return err
		}})
	must(t, err)
	sum := sha256.Sum256(b)
	if src.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 = %s, want the file's", src.SHA256)
	}
	fp, err := bundle.Fingerprint(s.PublicKey())
	must(t, err)
	if src.KeyFingerprint != fp || !src.KeyPinned {
		t.Errorf("key %s pinned=%v, want %s pinned", src.KeyFingerprint, src.KeyPinned, fp)
	}
	run, _ := os.ReadFile(filepath.Join(goodDir(t), schemas.RunFile))
	if !bytes.Equal(src.Docs[schemas.RunFile], run) || src.Docs[schemas.ClaimsFile] == nil {
		t.Errorf("run.json or claims.json not kept: %d documents", len(src.Docs))
	}
	for name := range src.Docs {
		if !keepDocs(name) {
			t.Errorf("kept %s, which Keep does not keep", name)
		}
	}
	if len(records) == 0 || !schemas.IsRecords(records[0]) {
		t.Errorf("records streamed: %v", records)
	}

	// A bundle whose claims.json is not what the statement signed is refused
	// by the subject check, before any document is returned.
	bad := repack(t, b, func(name string, data []byte) []byte {
		if name == schemas.ClaimsFile {
			return append(data, ' ')
		}
		return data
	})
	must(t, os.WriteFile(file, bad, 0o644))
	_, err = verify.Open(context.Background(), file, verify.OpenOptions{Keep: keepDocs, PublicKey: s.PublicKey()})
	var re *verify.RefusedError
	if !errors.As(err, &re) || !re.Signature || !re.KeyPinned || !strings.Contains(err.Error(), schemas.ClaimsFile) {
		t.Fatalf("tampered bundle: err = %v, want a *RefusedError from the subject check", err)
	}
	// Without a key, a bundle sealed with a key it does not carry cannot be checked.
	_, err = verify.Open(context.Background(), file, verify.OpenOptions{Keep: keepDocs})
	var ke *verify.KeyError
	if !errors.As(err, &ke) {
		t.Errorf("no key: err = %v, want a *KeyError", err)
	}
	// Unsigned reads it (report verifies with the whole checklist instead).
	src, err = verify.Open(context.Background(), file, verify.OpenOptions{Keep: keepDocs, Unsigned: true})
	must(t, err)
	claimed, _, err := src.ClaimedKey()
	must(t, err)
	if claimed != fp || src.Docs[schemas.ClaimsFile] == nil {
		t.Errorf("unsigned open: key %q, %d documents", src.KeyFingerprint, len(src.Docs))
	}
}

// A run directory is read with the same options; a missing path is a
// *ReadError naming it, never a refusal.
func TestOpenDir(t *testing.T) {
	dir := goodDir(t)
	n := 0
	src, err := verify.Open(context.Background(), dir, verify.OpenOptions{Keep: keepDocs,
		Records: func(string, io.Reader) error { n++; return nil }})
	must(t, err)
	if !src.Dir || src.Docs[schemas.RunFile] == nil || src.Docs[schemas.ClaimsFile] == nil || n == 0 || src.SHA256 != "" {
		t.Errorf("dir open: dir=%v, %d documents, %d records files, sha %q", src.Dir, len(src.Docs), n, src.SHA256)
	}
	_, err = verify.Open(context.Background(), filepath.Join(dir, "nope"), verify.OpenOptions{})
	var re *verify.ReadError
	if !errors.As(err, &re) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: err = %v, want *ReadError wrapping ErrNotExist", err)
	}
}
