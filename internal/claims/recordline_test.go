package claims

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// writerLine is a record as the runner writes it: internal/bench's
// appendRecord is held byte for byte to this encoder
// (TestAppendRecordMatchesEncodingJSON), so this is the canonical form.
func writerLine(t testing.TB, rec schemas.Record) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// fullRecord sets every field of schemas.Record, so a field added to it
// shows up as a key the canonical decoder does not know.
func fullRecord() schemas.Record {
	return schemas.Record{
		Target: "vllm", Concurrency: 16, Repeat: 2, Phase: schemas.PhaseMeasure,
		Seq: 12, Worker: 3, Clip: "1272-128104-0000", Variant: 40, SampleIndex: 51234,
		ByteOffset: 102512, InputSHA256: strings.Repeat("ab", 32), Seconds: 6.48,
		StartNs: 1_700_000_000_123, FirstByteNs: 1_700_000_050_000, EndNs: 1_700_000_090_000,
		Status: 200, OK: true, ErrorClass: "timeout", Error: `Post "http://127.0.0.1:8000/v1": EOF`,
		Output:    schemas.Output{Text: "MISTER QUILTER is the apostle, café ünïcode 中文", Scored: "mister quilter"},
		RequestID: "bs-1-2-3", ServerRequestID: "transcribe-bs-1-2-3", ResponseNote: "json_body",
		PlannedNs: 1_700_000_000_100, Attempt: 2,
	}
}

func TestDecodeCanonicalReadsTheWritersForm(t *testing.T) {
	full := fullRecord()
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fullRecord leaves %s zero: set it, so that its key is decoded", v.Type().Field(i).Name)
		}
	}
	bare := schemas.Record{Target: "a", Phase: schemas.PhaseWarmup, Variant: -1, SampleIndex: -1, ByteOffset: -1}
	escapes := full
	escapes.Error = "line one\nline \"two\"\t\\ back/slash\r\b\f"
	escapes.Text = ""
	tiny := full
	tiny.Seconds = 1e-7 // written 1e-7, as encoding/json writes it
	negative := full
	negative.StartNs, negative.Status, negative.Seconds = -5, -1, -0.25
	for name, rec := range map[string]schemas.Record{
		"every field": full, "no optional field": bare, "escapes": escapes,
		"exponent": tiny, "negative": negative,
	} {
		line := writerLine(t, rec)
		var got schemas.Record
		if !decodeCanonical(line, &got, nil) {
			t.Errorf("%s: the canonical decoder refused the writer's line %s", name, line)
			continue
		}
		if !reflect.DeepEqual(got, rec) {
			t.Errorf("%s: decoded %+v, want %+v", name, got, rec)
		}
	}
}

// TestDecodeRecordFallsBack: lines not in the canonical form still read,
// through encoding/json, to what encoding/json makes of them.
func TestDecodeRecordFallsBack(t *testing.T) {
	full := fullRecord()
	canon := string(writerLine(t, full))
	control := full
	control.Text = "bell\x07" // written as \u0007
	for name, line := range map[string]string{
		"spaces":          strings.Replace(canon, `"target":`, `"target": `, 1),
		"reordered":       `{"concurrency":16,` + strings.Replace(canon[1:], `"concurrency":16,`, "", 1),
		"other case key":  strings.Replace(canon, `"target"`, `"Target"`, 1),
		"unknown key":     strings.Replace(canon, `}`, `,"extra":1}`, 1),
		"duplicate key":   strings.Replace(canon, `,"attempt":2}`, `,"attempt":2,"attempt":3}`, 1),
		"unicode escape":  string(writerLine(t, control)),
		"html escape":     strings.Replace(canon, `apostle`, `\u003capostle\u003e`, 1),
		"null":            strings.Replace(canon, `"error_class":"timeout"`, `"error_class":null`, 1),
		"trailing spaces": canon + "  ",
	} {
		var fast schemas.Record
		if decodeCanonical([]byte(line), &fast, nil) {
			t.Errorf("%s: the canonical decoder took %s", name, line)
		}
		got, err := decodeRecord([]byte(line), nil)
		var want schemas.Record
		werr := json.Unmarshal([]byte(line), &want)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeRecord = %+v, %v; encoding/json: %+v, %v", name, got, err, want, werr)
		}
	}
	// Lines encoding/json refuses are refused, not half-read.
	for name, line := range map[string]string{
		"int with fraction": strings.Replace(canon, `"status":200`, `"status":200.5`, 1),
		"leading zero":      strings.Replace(canon, `"status":200`, `"status":0200`, 1),
		"overflow":          strings.Replace(canon, `"seq":12`, `"seq":99999999999999999999`, 1),
		"cut short":         canon[:len(canon)/2],
		"infinite":          strings.Replace(canon, `"audio_seconds":6.48`, `"audio_seconds":1e999`, 1),
	} {
		if _, err := decodeRecord([]byte(line), nil); err == nil {
			t.Errorf("%s: decodeRecord accepted %s", name, line)
		}
	}
}

// FuzzDecodeCanonical: whatever the canonical decoder accepts,
// encoding/json accepts too and decodes to the same Record.
func FuzzDecodeCanonical(f *testing.F) {
	full := fullRecord()
	f.Add(writerLine(f, full))
	f.Add(writerLine(f, schemas.Record{Variant: -1}))
	esc := full
	esc.Error = "a\"b\\c\nd/é"
	f.Add(writerLine(f, esc))
	var names interner
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast, interned schemas.Record
		took := decodeCanonical(line, &fast, nil)
		if decodeCanonical(line, &interned, &names) != took || took && !reflect.DeepEqual(fast, interned) {
			t.Fatalf("%q: interning changed the decoding", line)
		}
		if !took {
			return
		}
		var want schemas.Record
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("canonical decoder accepted %q, encoding/json refuses it: %v", line, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%q: canonical %+v, encoding/json %+v", line, fast, want)
		}
	})
}

// BenchmarkReadRecords reads 1,000 records as the runner writes them, with
// the canonical decoder and with encoding/json alone.
func BenchmarkReadRecords(b *testing.B) {
	var file bytes.Buffer
	for i := range 1000 {
		rec := fullRecord()
		rec.Seq, rec.StartNs = i, int64(i)*1e6
		file.Write(writerLine(b, rec))
		file.WriteByte('\n')
	}
	data := file.Bytes()
	b.Run("ReadRecords", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if rs, err := ReadRecords("f", bytes.NewReader(data)); err != nil || len(rs) != 1000 {
				b.Fatal(len(rs), err)
			}
		}
	})
	b.Run("canonical", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var in interner
		for b.Loop() {
			for line := range bytes.Lines(data) {
				var rec schemas.Record
				if !decodeCanonical(bytes.TrimSuffix(line, []byte("\n")), &rec, &in) {
					b.Fatal("refused")
				}
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for line := range bytes.Lines(data) {
				var rec schemas.Record
				if err := json.Unmarshal(line, &rec); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
