package claims

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/benchseal/benchseal/schemas"
)

// ErrTruncatedLine reports a records file whose last line was cut short,
// as a crash while writing it leaves it; the records before it are intact.
var ErrTruncatedLine = errors.New("last line is truncated")

// LineError locates a records line that could not be decoded.
type LineError struct {
	File string // as given to ReadRecords
	Line int    // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds one record line; transcripts are short, a line this long
// is not a record.
const maxLine = 16 << 20

// ReadRecords decodes the JSONL records read from r (named name in
// errors). Empty lines are skipped. A cut-short last line yields the
// records before it and a *LineError wrapping ErrTruncatedLine.
func ReadRecords(name string, r io.Reader) ([]schemas.Record, error) {
	var out []schemas.Record
	var names interner
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err != nil && err != io.EOF {
			return out, &LineError{name, n, err}
		}
		complete := err == nil
		if len(bytes.TrimSpace(line)) > 0 {
			rec, derr := decodeRecord(line, &names)
			if derr != nil {
				if !complete {
					return out, &LineError{name, n, ErrTruncatedLine}
				}
				return out, &LineError{name, n, derr}
			}
			out = append(out, rec)
		}
		if !complete {
			return out, nil
		}
	}
}

// decodeRecord decodes one records line: in the runner's canonical form
// without reflection (decodeCanonical), any other way through
// encoding/json, to the same Record.
func decodeRecord(line []byte, in *interner) (schemas.Record, error) {
	var rec schemas.Record
	if decodeCanonical(line, &rec, in) {
		return rec, nil
	}
	rec = schemas.Record{} // what the fast path left half-filled
	err := json.Unmarshal(line, &rec)
	return rec, err
}

// readLine returns one line without its newline; io.EOF when the line had
// none (the last line of the input, possibly empty). A line that fits
// br's buffer is returned in it, valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if buf == nil && err == nil {
			return chunk[:len(chunk)-1], nil
		}
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		switch err {
		case nil:
			return buf[:len(buf)-1], nil
		case bufio.ErrBufferFull:
			continue
		default:
			return buf, err
		}
	}
}

// LoadDir reads run.json and every records/<target>/*.jsonl of a run
// directory (or of an extracted bundle). A truncated last line of a records
// file is tolerated only when run.json says the run is incomplete.
func LoadDir(fsys fs.FS) (schemas.Run, []schemas.Record, error) {
	var run schemas.Run
	b, err := fs.ReadFile(fsys, schemas.RunFile)
	if err != nil {
		return run, nil, err
	}
	if err := json.Unmarshal(b, &run); err != nil {
		return run, nil, fmt.Errorf("run.json: %w", err)
	}
	files, err := fs.Glob(fsys, "records/*/*.jsonl")
	if err != nil {
		return run, nil, err
	}
	slices.Sort(files)
	var recs []schemas.Record
	for _, f := range files {
		fh, err := fsys.Open(f)
		if err != nil {
			return run, nil, err
		}
		rs, err := ReadRecords(path.Clean(f), fh)
		fh.Close()
		if err != nil && !(errors.Is(err, ErrTruncatedLine) && !run.Complete) {
			return run, nil, err
		}
		recs = append(recs, rs...)
	}
	return run, recs, nil
}
