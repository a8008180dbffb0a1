package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// DocError is a required document of the run (run.json, claims.json) that
// is missing (Err nil) or does not decode against its schema.
type DocError struct {
	Name string
	Err  error
}

func (e *DocError) Error() string {
	if e.Err == nil {
		return e.Name + ": missing"
	}
	return e.Name + ": " + e.Err.Error()
}
func (e *DocError) Unwrap() error { return e.Err }

// FromDocs decodes the documents of a run, by run-directory path, each
// validated against its schema first. run.json and claims.json are
// required (*DocError); the environment and server captures are extras:
// a bad one is passed to skipped and left out.
func FromDocs(docs map[string][]byte, skipped func(name string, err error)) (Input, error) {
	var in Input
	for _, req := range []struct {
		name, schema string
		v            any
	}{{schemas.RunFile, "run", &in.Run}, {schemas.ClaimsFile, "claims", &in.Claims}} {
		b, ok := docs[req.name]
		if !ok {
			return in, &DocError{Name: req.name}
		}
		if err := schemas.Decode(req.schema, b, req.v); err != nil {
			return in, &DocError{Name: req.name, Err: err}
		}
	}
	if b, ok := docs[schemas.GPUInfoFile]; ok {
		var g schemas.GPUInfo
		if err := schemas.Decode("gpu", b, &g); err != nil {
			skipped(schemas.GPUInfoFile, err)
		} else {
			in.GPU = &g
		}
	}
	if b, ok := docs[schemas.HostInfoFile]; ok {
		var h schemas.HostInfo
		if err := schemas.Decode("host", b, &h); err != nil {
			skipped(schemas.HostInfoFile, err)
		} else {
			in.Host = &h
		}
	}
	var names []string
	for name := range docs {
		if strings.HasPrefix(name, schemas.ServersDir+"/") && !schemas.IsServerEvents(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var sc schemas.ServerCapture
		if err := schemas.Decode("probe", docs[name], &sc); err != nil {
			skipped(name, err)
			continue
		}
		in.Servers = append(in.Servers, sc)
	}
	return in, nil
}

// NotEmptyError is an output directory that exists and holds files:
// WriteDir never writes into it.
type NotEmptyError struct{ Dir string }

func (e *NotEmptyError) Error() string { return e.Dir + " exists and is not empty" }

// WriteDir writes the report files (REPORT.md, SUMMARY.md and the charts with md,
// report.html with html) into a fresh temporary directory beside dir and
// renames it into place, so that dir either gets every file or none, and
// an existing non-empty dir is never touched (*NotEmptyError).
func WriteDir(dir string, in Input, md, html bool) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return &NotEmptyError{Dir: dir}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), ".benchseal-report-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, unwrapPath(err))
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	write := func(name string, f func(io.Writer) error) error {
		fh, err := os.OpenFile(filepath.Join(tmp, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return err
		}
		return fh.Close()
	}
	if md {
		in.LinkCharts = true
		if err := write(schemas.ReportFile, func(w io.Writer) error { return Markdown(w, in) }); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, schemas.ReportFile), err)
		}
		if err := write(SummaryFile, func(w io.Writer) error { return Summary(w, in) }); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, SummaryFile), err)
		}
		for _, ch := range ChartsOf(in) {
			if err := write(ch.File(), func(w io.Writer) error { return SVG(w, in, ch) }); err != nil {
				return fmt.Errorf("write %s: %w", filepath.Join(dir, ch.File()), err)
			}
		}
	}
	if html {
		if err := write("report.html", func(w io.Writer) error { return HTML(w, in) }); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, "report.html"), err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	// os.Rename refuses an existing directory; os.Remove removes only an
	// empty one, so a dir that filled up meanwhile makes this fail rather
	// than lose files.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	if err := os.Rename(tmp, dir); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
