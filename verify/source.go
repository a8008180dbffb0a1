package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultMemoryLimit is how many bytes of a bundle's files Bundle keeps in
// memory before it spills the rest to a temporary directory.
const DefaultMemoryLimit = 1 << 30

// files is what the checks read: every file of a bundle or run directory by
// its slash path. A bundle's files are kept in memory up to a limit and
// spilled to a temporary directory beyond it; a run directory's are read
// from disk when asked for.
type files struct {
	names []string // sorted bytewise
	size  map[string]int64
	mem   map[string][]byte
	disk  map[string]string // name -> path on disk
	tmp   string            // temporary directory to remove, "" when none
}

func newFiles() *files {
	return &files{size: map[string]int64{}, mem: map[string][]byte{}, disk: map[string]string{}}
}

func (f *files) has(name string) bool { _, ok := f.size[name]; return ok }

// read returns the contents of name.
func (f *files) read(name string) ([]byte, error) {
	if b, ok := f.mem[name]; ok {
		return b, nil
	}
	if p, ok := f.disk[name]; ok {
		return os.ReadFile(p)
	}
	return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// glob lists the names matching a path.Match pattern.
func (f *files) glob(pattern string) []string {
	var out []string
	for _, n := range f.names {
		if ok, _ := path.Match(pattern, n); ok {
			out = append(out, n)
		}
	}
	return out
}

func (f *files) close() {
	if f.tmp != "" {
		os.RemoveAll(f.tmp)
	}
}

// keep stores one file read from r: in memory while the memory budget
// lasts, else in the spill directory.
func (f *files) keep(name string, size int64, r io.Reader, budget *int64, tempDir string) error {
	f.size[name] = size
	f.names = append(f.names, name)
	if size <= *budget {
		b := make([]byte, 0, size)
		b, err := readAllInto(b, r)
		if err != nil {
			return err
		}
		*budget -= int64(len(b))
		f.mem[name] = b
		return nil
	}
	if f.tmp == "" {
		d, err := os.MkdirTemp(tempDir, "benchseal-verify-")
		if err != nil {
			return fmt.Errorf("spilling %s: %w", name, err)
		}
		f.tmp = d
	}
	out, err := os.CreateTemp(f.tmp, "entry-")
	if err != nil {
		return fmt.Errorf("spilling %s: %w", name, err)
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	f.disk[name] = out.Name()
	return nil
}

func readAllInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// dirFiles lists the regular files of a run directory. Anything else
// (links, devices) is reported, not followed.
func dirFiles(dir string) (*files, []Finding, error) {
	f := newFiles()
	var odd []Finding
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			odd = append(odd, Finding{Status: Fail, Path: name, Reason: "not a regular file (" + d.Type().String() + "): seal would refuse it"})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		f.size[name] = info.Size()
		f.disk[name] = p
		f.names = append(f.names, name)
		return nil
	})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	sort.Strings(f.names)
	return f, odd, nil
}

// isRecords reports whether name is a records file, records/<target>/<file>.jsonl.
func isRecords(name string) bool {
	parts := strings.Split(name, "/")
	return len(parts) == 3 && parts[0] == "records" && strings.HasSuffix(parts[2], ".jsonl")
}

// fsys presents the files as an fs.FS (for internal/claims.LoadTelemetry).
type fsys struct{ f *files }

func (s fsys) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || !s.f.has(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	b, err := s.f.read(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{Reader: bytes.NewReader(b), name: path.Base(name), size: int64(len(b))}, nil
}

type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m, nil }
func (m *memFile) Close() error               { return nil }
func (m *memFile) Name() string               { return m.name }
func (m *memFile) Size() int64                { return m.size }
func (m *memFile) Mode() fs.FileMode          { return 0o444 }
func (m *memFile) ModTime() time.Time         { return time.Time{} }
func (m *memFile) IsDir() bool                { return false }
func (m *memFile) Sys() any                   { return nil }
