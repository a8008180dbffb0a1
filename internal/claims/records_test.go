package claims

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchseal/benchseal/schemas"
)

func recordLines(t testing.TB) string {
	var b strings.Builder
	for _, r := range oneRepeat("a", 1) {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestReadRecords(t *testing.T) {
	full := recordLines(t)
	rs, err := ReadRecords("f", strings.NewReader(full))
	if err != nil || len(rs) != 6 {
		t.Fatalf("ReadRecords = %d, %v; want 6 records", len(rs), err)
	}
	// A crash mid-line: the five complete records survive.
	cut := full[:len(full)-20]
	rs, err = ReadRecords("f", strings.NewReader(cut))
	var le *LineError
	if !errors.Is(err, ErrTruncatedLine) || !errors.As(err, &le) || le.Line != 6 || len(rs) != 5 {
		t.Errorf("truncated: %d records, %v; want 5 and ErrTruncatedLine at line 6", len(rs), err)
	}
	// A complete line that is not a record is an error, not a truncation.
	bad := strings.Replace(full, "\n", "\n{oops}\n", 1)
	_, err = ReadRecords("f", strings.NewReader(bad))
	if !errors.As(err, &le) || le.Line != 2 || errors.Is(err, ErrTruncatedLine) {
		t.Errorf("bad line: %v, want a *LineError at line 2", err)
	}
	// No trailing newline but a whole record: fine.
	rs, err = ReadRecords("f", strings.NewReader(strings.TrimSuffix(full, "\n")))
	if err != nil || len(rs) != 6 {
		t.Errorf("no final newline: %d, %v", len(rs), err)
	}
}

func TestLoadDir(t *testing.T) {
	run := testRun()
	run.Complete = true
	rb, _ := json.Marshal(run)
	full := recordLines(t)
	fsys := fstest.MapFS{
		"run.json":              {Data: rb},
		"records/a/c2-r1.jsonl": {Data: []byte(full[:len(full)-3])},
	}
	if _, _, err := LoadDir(fsys); !errors.Is(err, ErrTruncatedLine) {
		t.Errorf("complete run with a truncated file: %v, want ErrTruncatedLine", err)
	}
	run.Complete = false
	run.Incomplete = "interrupted"
	rb, _ = json.Marshal(run)
	fsys["run.json"] = &fstest.MapFile{Data: rb}
	_, recs, err := LoadDir(fsys)
	if err != nil || len(recs) != 5 {
		t.Errorf("incomplete run: %d records, %v; want 5", len(recs), err)
	}
}

func FuzzReadRecords(f *testing.F) {
	seeds := []string{recordLines(f), recordLines(f)[:100], "\n\n", "{}\n{\"target\":1}\n"}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ReadRecords("fuzz", strings.NewReader(string(b)))
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error %v is not a *LineError with a line", err)
			}
		}
		// Every record decoded survives a round trip.
		for _, r := range rs {
			j, _ := json.Marshal(r)
			var back schemas.Record
			if err := json.Unmarshal(j, &back); err != nil || back != r {
				t.Fatalf("round trip of %+v: %v", r, err)
			}
		}
	})
}
