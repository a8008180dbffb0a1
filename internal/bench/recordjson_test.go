package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// jsonLine is what the records writer wrote before appendRecord: the
// encoding/json line of rec, HTML left unescaped.
func jsonLine(t testing.TB, rec any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var trickyStrings = []string{
	"", "ok", "bs-0123456789abcdef-c64-r1-s123", "a\"b\\c", "<script>&amp;</script>",
	"line\nbreak\r\ttab\b\f\x00\x01\x1f\x7f", "héllo wörld", "你好，世界", "emoji 🎤",
	"\u2028\u2029", "bad \xff\xfe utf8 \xc3", "trunc \xe4\xbd", "\xed\xa0\x80 surrogate",
	"HTTP 500: {\"detail\":\"The request queue is full.\"}",
}

var trickyFloats = []float64{0, 6.48, 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.123,
	math.SmallestNonzeroFloat64, math.MaxFloat64, -2.5e-9, 1.0 / 3, 0.5}

// TestAppendRecordMatchesEncodingJSON: appendRecord writes exactly
// encoding/json's line for records whose every field (set through
// reflection, so a field added to schemas.Record is set too) takes
// empty, zero, negative and awkward values: records on disk keep the
// bytes they had, and verify reads what it always read.
func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	var fields []reflect.Value
	var collect func(v reflect.Value)
	collect = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() == reflect.Struct {
				collect(f)
				continue
			}
			fields = append(fields, f)
		}
	}
	var rec schemas.Record
	collect(reflect.ValueOf(&rec).Elem())
	check := func(what string) {
		t.Helper()
		want := jsonLine(t, &rec)
		got, ok := appendRecord(nil, &rec)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("%s: appendRecord differs from encoding/json (ok %v)\n got %s\nwant %s", what, ok, got, want)
		}
	}
	check("zero record")
	for n := range 64 {
		for k, f := range fields {
			switch f.Kind() {
			case reflect.String:
				f.SetString(trickyStrings[(n+k)%len(trickyStrings)])
			case reflect.Int, reflect.Int64:
				f.SetInt([]int64{0, 1, -1, 64, math.MaxInt64, math.MinInt64, 1234567890123}[(n+k)%7])
			case reflect.Float64:
				f.SetFloat(trickyFloats[(n+k)%len(trickyFloats)])
			case reflect.Bool:
				f.SetBool((n+k)%2 == 0)
			default:
				t.Fatalf("schemas.Record has a %s field: appendRecord does not write it", f.Kind())
			}
		}
		check("record " + string(rune('A'+n%26)))
	}
	// Every field at a non-zero value at once: none is left out.
	for _, f := range fields {
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Float64:
			f.SetFloat(2.5)
		case reflect.Bool:
			f.SetBool(true)
		}
	}
	check("every field set")
	rec.Seconds = math.NaN()
	if _, ok := appendRecord(nil, &rec); ok {
		t.Error("a NaN audio_seconds was encoded; encoding/json refuses it")
	}
}

// FuzzAppendJSONString: any string and any float are written as
// encoding/json writes them.
func FuzzAppendJSONString(f *testing.F) {
	for i, s := range trickyStrings {
		f.Add(s, trickyFloats[i%len(trickyFloats)])
	}
	f.Fuzz(func(t *testing.T, s string, x float64) {
		if want := jsonLine(t, s); !bytes.Equal(append(appendJSONString(nil, s), '\n'), want) {
			t.Fatalf("%q: got %s want %s", s, appendJSONString(nil, s), want)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if want := jsonLine(t, x); !bytes.Equal(append(appendJSONFloat(nil, x), '\n'), want) {
			t.Fatalf("%v: got %s want %s", x, appendJSONFloat(nil, x), want)
		}
	})
}

// TestAppendRecordAllocatesNothing: encoding a line into a buffer with
// room allocates nothing.
func TestAppendRecordAllocatesNothing(t *testing.T) {
	rec := benchRecord()
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf, _ = appendRecord(buf[:0], &rec) }); n != 0 {
		t.Errorf("appendRecord: %v allocations per record, want 0", n)
	}
}

func benchRecord() schemas.Record {
	return schemas.Record{Target: "null", Concurrency: 64, Repeat: 1, Phase: schemas.PhaseMeasure, Seq: 1234, Worker: 12,
		Clip: "clip", Variant: 77, SampleIndex: 51234, ByteOffset: 102512,
		InputSHA256: "9ba5f5c9c7519ba5f5c9c7519ba5f5c9c7519ba5f5c9c7519ba5f5c9c7519ba5",
		Seconds:     6.48, StartNs: 123456789, FirstByteNs: 123456999, EndNs: 123457999, Status: 200, OK: true,
		Output: schemas.Output{Text: "ok", Scored: "ok"}, RequestID: "bs-0123456789abcdef-c64-r1-s1234"}
}

// BenchmarkRecordEncode: one record line, encoding/json against
// appendRecord.
func BenchmarkRecordEncode(b *testing.B) {
	rec := benchRecord()
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(&rec)
		}
	})
	b.Run("appendRecord", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = appendRecord(buf[:0], &rec)
		}
	})
}

// TestRunRecordsAndBodiesExact: in a whole run, every line on disk is
// encoding/json's encoding of the record it decodes to, and every
// request's file part, as the server read it off the wire (the body
// written by writev), hashes to the record's input_sha256 and
// re-derives from the clip: the fast paths change no byte of the
// evidence.
func TestRunRecordsAndBodiesExact(t *testing.T) {
	clips, _ := testCorpus(t, 2, 0.3)
	var mu sync.Mutex
	heard := map[string]string{} // request id -> SHA-256 of the file part received
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`))
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := sha256.New()
		io.Copy(h, f)
		mu.Lock()
		heard[r.Header.Get("X-Request-Id")] = hex.EncodeToString(h.Sum(nil))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"hello \u00e9 <world> \"x\""}`))
	}))
	defer ts.Close()
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: clips,
		Levels: []int{1, 4}, Requests: []int{6, 20}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*perturb.WAV{}
	for i := range clips {
		byID[clips[i].ID] = clips[i].WAV
	}
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			var rec schemas.Record
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatal(err)
			}
			if want := jsonLine(t, &rec); !bytes.Equal(line, want) {
				t.Fatalf("%s: the line on disk is not encoding/json's\n got %s\nwant %s", f, line, want)
			}
			if !rec.OK {
				t.Fatalf("%s seq %d failed: %s %s", f, rec.Seq, rec.ErrorClass, rec.Error)
			}
			if got := heard[rec.RequestID]; got != rec.InputSHA256 {
				t.Errorf("%s seq %d: the server received bytes hashing to %s, the record says %s", f, rec.Seq, got, rec.InputSHA256)
			}
			variantOK(t, byID, rec)
			n++
		}
	}
	if n != 1+6+4+20 { // warm-ups (C per level) and measured requests
		t.Errorf("%d records, want %d", n, 1+6+4+20)
	}
}
