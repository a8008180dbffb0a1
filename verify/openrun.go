package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// Run is what score and --compat read of a sealed run: run.json and every
// record.
type Run struct {
	Run     schemas.Run
	Records []schemas.Record
	Source  *Source // nil for a run directory
}

// NoRunError is a bundle without run.json.
type NoRunError struct{ Path string }

func (e *NoRunError) Error() string { return e.Path + " has no " + schemas.RunFile }

// OpenRun reads run.json and every records file of path: a run directory
// through claims.LoadDir (nothing is verified there; its errors come back
// as they are), or a bundle through Open with opts (whose Keep and Records
// it sets), so the signature and subjects are checked unless
// opts.Unsigned. A records line cut short in a bundle is left out
// (claims.ErrTruncatedLine). A path that cannot be read is a *ReadError
// naming path; a bundle's records that do not decode are wrapped with
// path; run.json that does not decode is "<path>: run.json: ...".
func OpenRun(ctx context.Context, path string, opts OpenOptions) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &ReadError{Path: path, Err: err}
	}
	r := &Run{}
	if st.IsDir() {
		r.Run, r.Records, err = claims.LoadDir(os.DirFS(path))
		return r, err
	}
	var recErr error
	opts.Keep = func(name string) bool { return name == schemas.RunFile }
	opts.Records = func(name string, rd io.Reader) error {
		rs, err := claims.ReadRecords(name, rd)
		if err != nil && !errors.Is(err, claims.ErrTruncatedLine) {
			recErr = err
			return err
		}
		r.Records = append(r.Records, rs...)
		return nil
	}
	r.Source, err = Open(ctx, path, opts)
	switch {
	case recErr != nil:
		return nil, fmt.Errorf("%s: %w", path, recErr)
	case err != nil:
		return nil, err
	}
	b, ok := r.Source.Docs[schemas.RunFile]
	if !ok {
		return nil, &NoRunError{Path: path}
	}
	if err := json.Unmarshal(b, &r.Run); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, schemas.RunFile, err)
	}
	return r, nil
}
