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
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// DefaultMemoryLimit is how many bytes of a bundle's files Bundle keeps in
// memory before it spills the rest to a temporary file. It is small on
// purpose: beyond it, memory must not grow with the audio (see the
// package doc, "Resources"); the spilled bytes stay in the page cache.
const DefaultMemoryLimit = 16 << 20

// files is what the checks read: every file of a bundle or run directory by
// its slash path. A bundle's files are kept in memory up to a limit and
// spilled beyond it, one after the other, into one temporary file (one
// file, not one per entry: creating thousands of files costs more than
// writing the gigabyte); a run directory's are read from disk when asked
// for.
type files struct {
	names []string // sorted bytewise
	size  map[string]int64
	mem   map[string][]byte
	disk  map[string]string // name -> path on disk (a run directory)
	// spilled locates a bundle file in the spill file.
	spilled map[string]int64 // name -> offset; its size is size[name]
	spill   *os.File         // nil until the first file spills
	end     int64            // bytes kept in spill (once flushed)
	// writes go to the spill file's writer goroutine, which returns the
	// buffers on free and closes written when writes is closed.
	writes, free chan []byte
	written      chan struct{}
	spillErr     error // the writer's; read after written is closed
	// sum is the SHA-256 (hex) bundle.Reader computed while the file
	// streamed past, so that no check hashes a file again just to know
	// its digest; a run directory's files have none.
	sum map[string]string
}

func newFiles() *files {
	return &files{size: map[string]int64{}, mem: map[string][]byte{}, disk: map[string]string{},
		spilled: map[string]int64{}, sum: map[string]string{}}
}

func (f *files) has(name string) bool { _, ok := f.size[name]; return ok }

// read returns the contents of name.
func (f *files) read(name string) ([]byte, error) {
	return f.readInto(name, nil)
}

// readInto is read for a file the caller holds only for a while: a file
// on disk is read into buf (grown when too small) instead of a fresh
// slice. The result shares buf or the kept bytes; the caller must not
// change it. It is safe for concurrent use once the files are all kept.
func (f *files) readInto(name string, buf []byte) ([]byte, error) {
	if b, ok := f.mem[name]; ok {
		return b, nil
	}
	if off, ok := f.spilled[name]; ok {
		n := f.size[name]
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := f.spill.ReadAt(buf, off); err != nil {
			return nil, fmt.Errorf("reading %s back from %s: %w", name, f.spill.Name(), err)
		}
		return buf, nil
	}
	if p, ok := f.disk[name]; ok {
		return readFileInto(p, buf)
	}
	return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// readFileInto reads the file at p into buf, reallocating it when the file
// is larger.
func readFileInto(p string, buf []byte) ([]byte, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && int64(cap(buf)) < st.Size()+1 {
		buf = make([]byte, 0, st.Size()+1) // +1: EOF is seen without growing
	}
	return readAllInto(buf[:0], fh)
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
	if f.spill != nil {
		f.flush()
		f.spill.Close()
		os.Remove(f.spill.Name())
	}
}

// spillBufs and spillBuf size the writes to the spill file in flight: a
// goroutine of its own writes them, so that the write(2) copies overlap
// decompressing and hashing the next bytes.
const (
	spillBufs = 4
	spillBuf  = 256 << 10
)

// keep stores one file read from r: in memory while the memory budget
// lasts, else at the end of the spill file.
func (f *files) keep(name string, size int64, r io.Reader, budget *int64, tempDir string) error {
	f.size[name] = size
	f.names = append(f.names, name)
	if size <= *budget {
		b := make([]byte, 0, size+1) // +1: EOF is seen without growing
		b, err := readAllInto(b, r)
		if err != nil {
			return err
		}
		*budget -= int64(len(b))
		f.mem[name] = b
		return nil
	}
	if f.spill == nil {
		t, err := os.CreateTemp(tempDir, "benchseal-verify-*.spill")
		if err != nil {
			return fmt.Errorf("spilling %s: %w", name, err)
		}
		f.spill = t
		f.writes, f.free, f.written = make(chan []byte, spillBufs), make(chan []byte, spillBufs), make(chan struct{})
		for range spillBufs {
			f.free <- make([]byte, spillBuf)
		}
		go f.writer(f.writes)
	}
	var n int64
	for {
		buf := <-f.free
		k, err := io.ReadFull(r, buf)
		n += int64(k)
		f.writes <- buf[:k]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
	}
	f.spilled[name] = f.end
	f.end += n
	f.size[name] = n
	return nil
}

// writer writes the spill buffers in order and hands them back. It is
// given the channel rather than reading f.writes, which flush sets to
// nil: a writer scheduled only after a small spill was flushed would
// otherwise range over nil and never close written (FuzzBundle hung so on
// a loaded host).
func (f *files) writer(writes <-chan []byte) {
	defer close(f.written)
	for b := range writes {
		if f.spillErr == nil && len(b) > 0 {
			if _, err := f.spill.Write(b); err != nil {
				f.spillErr = fmt.Errorf("spilling to %s: %w", f.spill.Name(), err)
			}
		}
		f.free <- b[:cap(b)]
	}
}

// flush waits for the spill file to hold everything kept; the files can
// be read once it returns nil.
func (f *files) flush() error {
	if f.spill == nil {
		return nil
	}
	if f.writes != nil {
		close(f.writes)
		f.writes = nil
		<-f.written
	}
	return f.spillErr
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
func isRecords(name string) bool { return schemas.IsRecords(name) }

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
