package peer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite testdata/ from the fixtures")

// sample is one line of a raw file, in asr.py's key order.
type sample struct {
	id, refText, hypText, refNorm, hypNorm, err string
	ok                                          bool
	wer                                         any // float64 or nil
	audio, latency                              float64
}

func (s sample) line() string {
	return pyDump(obj{{"id", s.id}, {"is_success", s.ok}, {"wer", s.wer}, {"ref_text", s.refText}, {"hyp_text", s.hypText},
		{"ref_norm", s.refNorm}, {"hyp_norm", s.hypNorm}, {"audio_duration_s", s.audio}, {"latency_s", s.latency},
		{"text_ttft_s", nil}, {"inter_chunk_s", []any{}}, {"error", s.err}}, 0)
}

// seedSamples is one pass over a 3-clip corpus at concurrency 2: a is
// transcribed right (after British -> American spelling), b comes back
// HTTP 200 with empty text (a success, every word deleted), c fails with
// HTTP 500. latA and latB are the two successes' latencies.
func seedSamples(latA, latB float64) []sample {
	return []sample{
		{id: "a", refText: "The colour red.", hypText: "the color red", refNorm: "the color red", hypNorm: "the color red",
			ok: true, wer: 0.0, audio: 2.0, latency: latA},
		{id: "b", refText: "A dog ran.", hypText: "", refNorm: "a dog ran", hypNorm: "", ok: true, wer: 1.0, audio: 1.0, latency: latB},
		{id: "c", refText: "Hello world.", err: "HTTP 500: Internal Server Error", wer: nil},
	}
}

// repeatFigures are a repeat's published figures, worked out by hand from
// seedSamples and the peer's definitions (package doc):
//
//	rep 1: latencies 0.5, 0.25, wall 1.0; rep 2: 0.4, 0.2, wall 0.7.
//	corpus_wer = (0 + 3 deletions) / (3 + 3) = 0.5; max wer 1.0.
//	req/s = 2 / wall; rtfx = round((2 + 1) / wall, 3): 3.0, 4.286.
//	latency p95 = lo + 0.95 (hi - lo); p99 = lo + 0.99 (hi - lo).
//	rtf = latency / audio: 0.25, 0.25 (rep 1); 0.2, 0.2 (rep 2).
var repeatFigures = []obj{
	{{"corpus_wer", 0.5}, {"per_sample_wer_max", 1.0}, {"wall_clock_s", 1.0}, {"throughput_samples_per_s", 2.0}, {"rtfx", 3.0},
		{"latency_mean_s", 0.375}, {"latency_median_s", 0.375}, {"latency_p95_s", 0.4875}, {"latency_p99_s", 0.4975},
		{"rtf_mean", 0.25}, {"rtf_p95", 0.25}},
	{{"corpus_wer", 0.5}, {"per_sample_wer_max", 1.0}, {"wall_clock_s", 0.7}, {"throughput_samples_per_s", 2 / 0.7}, {"rtfx", 4.286},
		{"latency_mean_s", 0.3}, {"latency_median_s", 0.3}, {"latency_p95_s", 0.39}, {"latency_p99_s", 0.398},
		{"rtf_mean", 0.2}, {"rtf_p95", 0.2}},
}

func get(o obj, k string) any {
	for _, e := range o {
		if e.k == k {
			return e.v
		}
	}
	return nil
}

func set(o obj, k string, v any) obj {
	for i, e := range o {
		if e.k == k {
			o[i].v = v
			return o
		}
	}
	return append(o, kv{k, v})
}

// seedFixture is a benchmark_asr_seedtts.py result (one level, C=2, two
// repeats, --warmup) with its --save-raw-dir files, as the peer writes
// them. edit may change the per-repeat figures before the level's
// aggregate is taken from them, as _aggregate does.
func seedFixture(edit func(reps []obj)) fstest.MapFS {
	fsys := fstest.MapFS{}
	lats := [][2]float64{{0.5, 0.25}, {0.4, 0.2}}
	var reps []obj
	for i, fig := range repeatFigures {
		r := obj{{"concurrency", 2}, {"repeat", i + 1}, {"evaluated", 2}, {"total", 3}, {"skipped", 1}}
		r = append(r, append(obj{}, fig...)...)
		r = append(r, kv{"worker", obj{}}, kv{"resources", obj{{"available", false}, {"error", "resource monitoring disabled"}}})
		reps = append(reps, r)
		var raw string
		for _, s := range seedSamples(lats[i][0], lats[i][1]) {
			raw += s.line() + "\n"
		}
		fsys[fmt.Sprintf("raw/conc2_rep%d.jsonl", i+1)] = &fstest.MapFile{Data: []byte(raw)}
	}
	if edit != nil {
		edit(reps)
	}
	agg := obj{{"concurrency", 2}, {"repeats", len(reps)}}
	for _, k := range []string{"evaluated", "total", "skipped"} {
		n := 0
		for _, r := range reps {
			n += get(r, k).(int)
		}
		agg = append(agg, kv{k, n})
	}
	for _, e := range repeatFigures[0] {
		var v []float64
		for _, r := range reps {
			if x, ok := get(r, e.k).(float64); ok {
				v = append(v, x)
			}
		}
		st := obj{{"mean", nil}, {"min", nil}, {"max", nil}, {"n", 0}}
		if len(v) > 0 {
			st = obj{{"mean", *npMean(v)}, {"min", min(v[0], v[len(v)-1])}, {"max", max(v[0], v[len(v)-1])}, {"n", len(v)}}
		}
		agg = append(agg, kv{e.k, st})
	}
	perRepeat := make([]any, len(reps))
	for i := range reps {
		perRepeat[i] = reps[i]
	}
	agg = append(agg, kv{"per_repeat", perRepeat})
	payload := obj{{"schema_version", 2}, {"provenance", obj{}},
		{"config", obj{{"host", "127.0.0.1"}, {"port", 8000}, {"lang", "en"}, {"model_path", "Qwen/Qwen3-ASR-1.7B"},
			{"num_samples", 3}, {"concurrencies", []any{2}}, {"repeats", 2}, {"warmup", true}, {"stream", false}}},
		{"results", []any{agg}}}
	fsys["result.json"] = &fstest.MapFile{Data: []byte(pyDump(payload, 2))}
	return fsys
}

// TestWriteFixtures keeps testdata/seedtts in step with seedFixture; the
// CLI scripts embed copies of these files.
func TestWriteFixtures(t *testing.T) {
	fsys := seedFixture(nil)
	for name, f := range fsys {
		p := filepath.Join("testdata", "seedtts", filepath.FromSlash(name))
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("%s is not the fixture (run go test -run TestWriteFixtures -update): %v", p, err)
		}
	}
}
