package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A record line as the build before the core/payload split wrote it
// (internal/report/testdata/simrun, made by that build).
const recordBeforeSplit = `{"target":"vllm","concurrency":1,"repeat":1,"phase":"measure","seq":1,"worker":0,"clip":"a","variant":1,"sample_index":7162,"byte_offset":14368,"input_sha256":"579c069458df84afe0b9ed9971800bc24ef1fe560626d0d5c100102d2902cd38","audio_seconds":0.5,"start_ns":103063840,"first_byte_ns":144385118,"end_ns":144403413,"status":200,"ok":true,"error_class":"","error":"","text":"language English<asr_text>the cat sat on the mat","text_scored":"the cat sat on the mat","request_id":"bs-969fd4c98d0a409a-c1-r1-s1","response_note":"json_body"}`

// TestRecordBeforeSplitDecodesAsASR: a record written before the split
// decodes into the core and an ASR payload (the transcript as returned
// and as scored, the clip's seconds), and encodes back to the same bytes,
// so records, and the digests of them, are what they were.
func TestRecordBeforeSplitDecodesAsASR(t *testing.T) {
	if err := Validate("record", []byte(recordBeforeSplit)); err != nil {
		t.Fatal(err)
	}
	var r Record
	if err := json.Unmarshal([]byte(recordBeforeSplit), &r); err != nil {
		t.Fatal(err)
	}
	want := Output{Text: "language English<asr_text>the cat sat on the mat", Scored: "the cat sat on the mat"}
	if r.Output != want || r.Seconds != 0.5 || r.Clip != "a" || r.EndNs != 144403413 || r.ResponseNote != NoteJSONBody {
		t.Errorf("decoded %+v", r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as the runner encodes records
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	if b := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); string(b) != recordBeforeSplit {
		t.Errorf("re-encoded\n%s\nwant\n%s", b, recordBeforeSplit)
	}
}

// TestClaimsBeforeSplitDecode: claims.json written before the split (the
// simulated run internal/report's goldens are made from) decodes with its
// quality figure ("wer") in Metrics.Quality and encodes back to the same
// document.
func TestClaimsBeforeSplitDecode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "internal", "report", "testdata", "simrun", "run", ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate("claims", raw); err != nil {
		t.Fatal(err)
	}
	var c Claims
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	q := 0
	for _, tc := range c.Targets {
		for _, l := range tc.Levels {
			if l.Median.Quality != nil {
				q++
			}
		}
	}
	if q == 0 || !bytes.Contains(raw, []byte(`"wer"`)) {
		t.Errorf("no level's quality decoded from %d bytes with \"wer\"", len(raw))
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := json.Compact(&want, raw); err != nil {
		t.Fatal(err)
	}
	json.Compact(&got, b)
	if got.String() != want.String() {
		t.Errorf("re-encoded claims differ from the file:\n%s\nwant\n%s", got.Bytes(), want.Bytes())
	}
}
