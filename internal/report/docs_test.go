package report

import (
	"encoding/json"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// Records reads every records file in name order, and one bad file gives
// no records at all, naming that file.
func TestRecords(t *testing.T) {
	recs := records(fixture())
	half := len(recs) / 2
	jsonl := func(rs []schemas.Record) []byte {
		var b []byte
		for _, r := range rs {
			j, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b = append(append(b, j...), '\n')
		}
		return b
	}
	a, b := schemas.RecordsDir+"/t/a.jsonl", schemas.RecordsDir+"/t/b.jsonl"
	docs := map[string][]byte{b: jsonl(recs[half:]), a: jsonl(recs[:half]), schemas.RunFile: []byte("{")}
	got, bad, err := Records(docs)
	if err != nil || bad != "" || len(got) != len(recs) || got[0] != recs[0] || got[half] != recs[half] {
		t.Fatalf("Records = %d records, %q, %v; want %d in name order", len(got), bad, err, len(recs))
	}
	docs[b] = []byte("{not json\n")
	if got, bad, err := Records(docs); err == nil || bad != b || got != nil {
		t.Errorf("a bad file: %d records, %q, %v; want none, %s and its error", len(got), bad, err, b)
	}
	for name, want := range map[string]bool{schemas.RunFile: true, schemas.ClaimsFile: true, a: true, "inputs/x.wav": false, "REPORT.md": false} {
		if Keeps(name) != want {
			t.Errorf("Keeps(%q) = %v", name, !want)
		}
	}
}
