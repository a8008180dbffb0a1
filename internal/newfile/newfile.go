// Package newfile owns "write a new file, never overwrite" for evidence,
// keys, bundles and reports: they are created with O_EXCL, or written to
// a temporary file and linked into place, so that an existing file is
// never replaced, not even one that appears while it is being written.
// The one file replaced by design goes through WriteAtomic with replace
// (the runner's run.json, rewritten whole when the run ends): it too
// appears complete or not at all.
//
// Not every new file goes through it: export's tables, the fingerprint
// recorder's files and launch logs, the report's temporary files and
// tools/loadcmp open theirs with O_EXCL themselves.
//
// Errors wrap fs.ErrExist when the file exists; callers word the hint
// (this package never names a flag).
package newfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Create creates path for writing; it fails, wrapping fs.ErrExist, if
// path exists.
func Create(path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// Write creates path with perm and writes b to it, failing if path exists.
// A file it created but could not write completely is removed.
func Write(path string, b []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// Publish puts the complete file tmp at path without ever replacing a
// file there: os.Link fails if path exists, even one that appeared after
// any check. Where hard links are not supported (other than across
// devices) it falls back to a last existence check and a rename, a narrow
// race. The error wraps fs.ErrExist when path exists; tmp is left for the
// caller to remove.
func Publish(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return &ExistsError{Path: path}
	}
	if _, serr := os.Lstat(path); serr == nil {
		return &ExistsError{Path: path}
	}
	if strings.Contains(err.Error(), "cross-device") {
		return err
	}
	return os.Rename(tmp, path)
}

// ExistsError is a file that appeared at path while it was being written.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s appeared while it was written: %v", e.Path, fs.ErrExist)
}
func (e *ExistsError) Unwrap() error { return fs.ErrExist }

// WriteJSON writes v, indented, as a new file.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(b, '\n'), 0o644)
}

// WriteAtomic writes path through a temporary file in its directory, so
// that path appears complete or not at all. It never replaces an existing
// file (the error wraps fs.ErrExist, see Publish) unless replace is set.
// Errors name path, never the temporary file.
func WriteAtomic(path string, replace bool, write func(io.Writer) (int64, error)) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = write(tmp); err != nil {
		return fmt.Errorf("%s: write: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", path, err)
	}
	if replace {
		if err = os.Rename(tmp.Name(), path); err != nil {
			return fmt.Errorf("%s: %w", path, errors.Unwrap(err))
		}
		return nil
	}
	if err = Publish(tmp.Name(), path); err != nil {
		var le *os.LinkError
		switch {
		case errors.Is(err, fs.ErrExist):
			return err
		case errors.As(err, &le):
			return fmt.Errorf("%s: %w", path, le.Err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	os.Remove(tmp.Name())
	return nil
}
