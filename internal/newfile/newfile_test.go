package newfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/newfile"
)

func TestWriteNeverOverwrites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "evidence.json")
	if err := newfile.Write(p, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := newfile.Write(p, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Write: err = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("file now holds %q: overwritten", b)
	}
	if _, err := newfile.Create(p, 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create of an existing file: err = %v", err)
	}
}

func TestPublish(t *testing.T) {
	dir := t.TempDir()
	tmp, dst := filepath.Join(dir, ".tmp"), filepath.Join(dir, "out")
	if err := os.WriteFile(tmp, []byte("bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := newfile.Publish(tmp, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "bundle" {
		t.Fatalf("published %q", b)
	}
	// A file at the destination (one that appeared meanwhile) is kept.
	tmp2 := filepath.Join(dir, ".tmp2")
	if err := os.WriteFile(tmp2, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := newfile.Publish(tmp2, dst)
	var ee *newfile.ExistsError
	if !errors.As(err, &ee) || !errors.Is(err, fs.ErrExist) || ee.Path != dst {
		t.Fatalf("Publish over an existing file: err = %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "bundle" {
		t.Fatalf("destination now holds %q: overwritten", b)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "variant.wav")
	put := func(s string) func(w io.Writer) (int64, error) {
		return func(w io.Writer) (int64, error) { n, err := io.WriteString(w, s); return int64(n), err }
	}
	if err := newfile.WriteAtomic(p, false, put("first")); err != nil {
		t.Fatal(err)
	}
	if err := newfile.WriteAtomic(p, false, put("second")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteAtomic: err = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("file holds %q: overwritten without replace", b)
	}
	failed := func(w io.Writer) (int64, error) { io.WriteString(w, "half"); return 0, errors.New("disk full") }
	if err := newfile.WriteAtomic(p, true, failed); err == nil || err.Error() != p+": write: disk full" {
		t.Fatalf("failed write: err = %v", err)
	}
	if err := newfile.WriteAtomic(p, true, put("third")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "third" {
		t.Fatalf("file holds %q after replace", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files left in the directory, want 1 (no temporary file)", len(ents))
	}
}
