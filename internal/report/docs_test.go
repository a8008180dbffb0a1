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

// RequestStages reads every stages file by target, each line against its
// schema; one bad line gives no stage times at all, naming its file.
// Report keeps them, and the raw server events it does not read.
func TestRequestStages(t *testing.T) {
	a, b := schemas.StagesPath("t", 1, 1), schemas.StagesPath("u", 2, 1)
	line := `{"request_id":"x","server_request_id":"transcribe-x","source":"otlp","concurrency":1,"repeat":1,"queue_s":0,"build_s":null,"prefill_s":0.01,"decode_s":0.03,"inference_s":0.04,"ttft_s":0.01,"e2e_s":0.05,"parts":1}` + "\n"
	docs := map[string][]byte{a: []byte(line + line), b: []byte(line), schemas.RunFile: []byte("{")}
	got, bad, err := RequestStages(docs)
	if err != nil || bad != "" || len(got["t"]) != 2 || len(got["u"]) != 1 || *got["t"][1].E2ES != 0.05 {
		t.Fatalf("RequestStages = %v, %q, %v; want 2 lines of t, 1 of u", got, bad, err)
	}
	docs[b] = []byte(line + `{"request_id":"y","source":"otlp"}` + "\n")
	if got, bad, err := RequestStages(docs); err == nil || bad != b || got != nil {
		t.Errorf("a bad line: %v, %q, %v; want none, %s and its error", got, bad, err, b)
	}
	for name, want := range map[string]bool{a: true, schemas.OTLPExportPath("t", 1): false, schemas.ProfilerEventsPath("t", 1, 1, "events_asr_1.jsonl"): false} {
		if Keeps(name) != want {
			t.Errorf("Keeps(%q) = %v", name, !want)
		}
	}
}
