package bench

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// makeWAV is a real 16-bit mono PCM WAV of noise, distinct per seed.
func makeWAV(rate int, seconds float64, seed uint64) []byte {
	return testkit.PCM16(rate, testkit.Noise(seed, int(float64(rate)*seconds)))
}

var refs = []string{"the quick brown fox", "jumps over the lazy dog", "hello world again"}

// testCorpus writes clips with references to a folder and loads it.
func testCorpus(t testing.TB, n int, seconds float64) ([]Clip, []sim.Clip) {
	dir := t.TempDir()
	var sc []sim.Clip
	for i := range n {
		w := makeWAV(16000, seconds, uint64(i+1))
		name := filepath.Join(dir, string(rune('a'+i))+".wav")
		os.WriteFile(name, w, 0o644)
		os.WriteFile(strings.TrimSuffix(name, ".wav")+".txt", []byte(refs[i%len(refs)]+"\n"), 0o644)
		sc = append(sc, sim.Clip{Audio: w, Text: refs[i%len(refs)]})
	}
	clips, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return clips, sc
}

func simServer(t testing.TB, cfg sim.Config) *httptest.Server {
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

// loaded is a run directory read back and checked against the schemas.
type loaded struct {
	run    schemas.Run
	recs   []schemas.Record
	claims schemas.Claims
	files  map[string][]schemas.Record // by records path
}

func loadRun(t testing.TB, dir string) loaded {
	t.Helper()
	var l loaded
	rb, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate("run", rb); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	json.Unmarshal(rb, &l.run)
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	l.files = map[string][]schemas.Record{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if err := schemas.ValidateLines("record", b); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rs, err := claims.ReadRecords(f, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rel, _ := filepath.Rel(dir, f)
		l.files[filepath.ToSlash(rel)] = rs
		l.recs = append(l.recs, rs...)
	}
	cb, err := os.ReadFile(filepath.Join(dir, "claims.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate("claims", cb); err != nil {
		t.Fatalf("claims.json: %v", err)
	}
	json.Unmarshal(cb, &l.claims)
	// The published claims are exactly what the records recompute to.
	again, err := claims.Compute(l.run, l.recs)
	if err != nil {
		t.Fatal(err)
	}
	ab, _ := json.MarshalIndent(again, "", "  ")
	if !bytes.Equal(append(ab, '\n'), cb) {
		t.Errorf("claims.json differs from the claims recomputed from the records")
	}
	return l
}

func runPlan(t testing.TB, p Plan, opts ...Option) (string, *Result, error) {
	dir := filepath.Join(t.TempDir(), "run")
	res, err := Run(context.Background(), dir, p, opts...)
	return dir, res, err
}

func cacheHits(t testing.TB, url string) float64 {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	for _, line := range strings.Split(buf.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "vllm:mm_cache_hits_total"); ok {
			var f float64
			if _, err := fmtSscan(strings.TrimSpace(v[strings.LastIndex(v, " ")+1:]), &f); err == nil {
				return f
			}
		}
	}
	t.Fatalf("no vllm:mm_cache_hits_total in /metrics:\n%s", buf.String())
	return 0
}

// variantOK re-derives a record's variant from its clip.
func variantOK(t testing.TB, clips map[string]*perturb.WAV, r schemas.Record) {
	w := clips[r.Clip]
	v, err := w.Variant(r.SampleIndex)
	if err != nil {
		t.Fatalf("record %s/%d: %v", r.Target, r.Seq, err)
	}
	if got := hexSum(v.SHA256); got != r.InputSHA256 || v.ByteOffset != r.ByteOffset {
		t.Errorf("record %s c%d r%d seq %d: variant does not re-derive", r.Target, r.Concurrency, r.Repeat, r.Seq)
	}
}

var _ = time.Second

func fmtSscan(s string, f *float64) (int, error) { return fmt.Sscan(s, f) }
func hexSum(b [32]byte) string                   { return hex.EncodeToString(b[:]) }

func httptestServer(t testing.TB, h http.HandlerFunc) *httptest.Server {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
