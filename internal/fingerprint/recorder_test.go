package fingerprint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

const token = "sk-recordertoken0123456789abcdef"

func TestRecorderRunDirectory(t *testing.T) {
	wav := pcmWAV(16000)
	s, err := sim.New(sim.Config{Cache: true, Corpus: []sim.Clip{{Audio: wav, Text: "hello world"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	anchor := time.Now()
	r := fingerprint.NewRecorder(fingerprint.RecorderConfig{Args: []string{"benchseal", "run", "--api-key", token},
		RedactHost: true, SampleInterval: 20 * time.Millisecond,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: srv.URL, Header: http.Header{"Authorization": {"Bearer " + token}}}}})
	ctx := context.Background()
	if err := r.BeforeSweep(ctx, dir, anchor); err != nil {
		t.Fatal(err)
	}
	step := func(c int, bodies ...[]byte) schemas.StepTelemetry {
		if err := r.StepStart(ctx, "a", c, 1); err != nil {
			t.Fatal(err)
		}
		if err := r.MeasureStart(ctx, "a", c, 1); err != nil {
			t.Fatal(err)
		}
		from := time.Since(anchor).Nanoseconds()
		for _, b := range bodies {
			transcribe(t, srv.URL, b)
		}
		st, err := r.StepEnd(ctx, "a", c, 1, from, time.Since(anchor).Nanoseconds())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var variants [][]byte
	for i := range 3 {
		v := bytes.Clone(wav)
		v[44+2*i] ^= 1
		variants = append(variants, v)
	}
	perturbed := step(1, variants...)
	same := step(2, wav, wav)
	if err := r.AfterSweep(ctx); err != nil {
		t.Fatal(err)
	}
	// Raw counters only; claims takes cache_hits from the multimodal one.
	mm := fingerprint.VLLMMMCacheHits
	for _, c := range []struct {
		st   schemas.StepTelemetry
		hits float64
	}{{perturbed, 0}, {same, 1}} {
		_, okb := c.st.CacheBefore[mm]
		_, oka := c.st.CacheAfter[mm]
		if !okb || !oka || c.st.CacheAfter[mm]-c.st.CacheBefore[mm] != c.hits || c.st.Target != "a" || c.st.EndNs < c.st.StartNs {
			t.Errorf("step c=%d: %+v, want %s to grow by %g", c.st.Concurrency, c.st, mm, c.hits)
		}
	}
	// steps.jsonl: the returned lines, raw facts and no summary; the
	// samplers sampled each step's edges, so claims has samples around
	// every window.
	lines := bytes.Split(bytes.TrimSpace(mustRead(t, filepath.Join(dir, "telemetry/steps.jsonl"))), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d steps.jsonl lines, want 2", len(lines))
	}
	for i, want := range []schemas.StepTelemetry{perturbed, same} {
		var keys map[string]any
		var got schemas.StepTelemetry
		json.Unmarshal(lines[i], &keys)
		json.Unmarshal(lines[i], &got)
		for k := range keys {
			if !slices.Contains([]string{"target", "concurrency", "repeat", "start_ns", "end_ns", "gpus", "cache_before", "cache_measure", "cache_after", "notes",
				"sample_start_ns", "sample_end_ns", "scrapes"}, k) {
				t.Errorf("steps.jsonl line %d has %q: %s", i+1, k, lines[i])
			}
		}
		// Each scrape's time, on the records' clock, in the order the
		// step took them: before, the warm-ups, measure, the measured
		// window, after (verify bounds the time between steps by them).
		b, m, a := got.Scrapes["before"], got.Scrapes["measure"], got.Scrapes["after"]
		if b.DurNs <= 0 || m.DurNs <= 0 || a.DurNs <= 0 || b.End() > m.StartNs || m.End() > got.StartNs || got.EndNs > a.StartNs {
			t.Errorf("steps.jsonl line %d: scrapes out of order or untimed: %+v (window %d..%d)", i+1, got.Scrapes, got.StartNs, got.EndNs)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("steps.jsonl line %d = %+v, StepEnd returned %+v", i+1, got, want)
		}
	}
	var host []schemas.HostSample
	for _, l := range bytes.Split(bytes.TrimSpace(mustRead(t, filepath.Join(dir, "telemetry/host.jsonl"))), []byte("\n")) {
		var h schemas.HostSample
		json.Unmarshal(l, &h)
		host = append(host, h)
	}
	// The edge samples: sample_start_ns at or before the first measured
	// start, sample_end_ns at or after the last end, each a written sample.
	for _, st := range []schemas.StepTelemetry{perturbed, same} {
		if st.SampleStartNs == nil || st.SampleEndNs == nil || *st.SampleStartNs > st.StartNs || *st.SampleEndNs < st.EndNs ||
			!slices.ContainsFunc(host, func(h schemas.HostSample) bool { return h.TNs == *st.SampleStartNs }) ||
			!slices.ContainsFunc(host, func(h schemas.HostSample) bool { return h.TNs == *st.SampleEndNs }) {
			t.Errorf("step c=%d [%d, %d]: edge samples %v, %v not written around the window: %+v", st.Concurrency, st.StartNs, st.EndNs,
				st.SampleStartNs, st.SampleEndNs, host)
		}
	}
	docs := map[string]string{"env/client.json": "client", "env/host.json": "host", "env/gpu.json": "gpu",
		"servers/a/probes-before.json": "probe", "servers/a/probes-after.json": "probe"}
	for path, schema := range docs {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.Validate(schema, b); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for path, schema := range map[string]string{"telemetry/host.jsonl": "host_sample", "telemetry/gpu.jsonl": "gpu_sample", "telemetry/steps.jsonl": "step_telemetry"} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.ValidateLines(schema, b); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, p := range []string{"c1-r1-before.prom", "c1-r1-after.prom", "c2-r1-before.prom", "c2-r1-after.prom"} {
		if b, err := os.ReadFile(filepath.Join(dir, "servers/a/metrics", p)); err != nil || !bytes.Contains(b, []byte("vllm:mm_cache_hits_total")) {
			t.Errorf("%s: %v", p, err)
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if b, _ := os.ReadFile(p); err == nil && !d.IsDir() && bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	// Evidence is never overwritten: a second sweep into the same directory fails.
	if err := fingerprint.NewRecorder(fingerprint.RecorderConfig{}).BeforeSweep(ctx, dir, anchor); err == nil {
		t.Error("BeforeSweep overwrote env/")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A scrape that fails is recorded in the step's steps.jsonl line
// (scrape_errors), so that verify can tell a scrape lost to the server
// from one removed after the run; a scrape that answers records none.
func TestRecorderScrapeErrors(t *testing.T) {
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail && r.URL.Path == "/metrics" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("# TYPE x counter\nx_total 1\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	anchor := time.Now()
	r := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: time.Hour,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: srv.URL}}})
	ctx := context.Background()
	if err := r.BeforeSweep(ctx, dir, anchor); err != nil {
		t.Fatal(err)
	}
	if err := r.StepStart(ctx, "a", 1, 1); err == nil {
		t.Fatal("StepStart: no error from a 503 /metrics")
	}
	fail = false
	st, err := r.StepEnd(ctx, "a", 1, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if e := st.ScrapeErrors["before"]; e == "" || st.ScrapeErrors["after"] != "" || len(st.ScrapeErrors) != 1 {
		t.Errorf("scrape_errors %v: want the failed scrape before, none after", st.ScrapeErrors)
	}
	if err := r.StepStart(ctx, "a", 1, 2); err != nil {
		t.Fatal(err)
	}
	st, err = r.StepEnd(ctx, "a", 1, 2, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if st.ScrapeErrors != nil {
		t.Errorf("scrape_errors %v after two answered scrapes", st.ScrapeErrors)
	}
	if err := r.AfterSweep(ctx); err != nil {
		t.Fatal(err)
	}
}

// ProbeStart and ProbeEnd keep the raw scrapes around a cache probe and
// one raw line of its cache counters in telemetry/cache-probes.jsonl.
func TestRecorderProbe(t *testing.T) {
	wav := pcmWAV(16000)
	s, err := sim.New(sim.Config{Cache: true, Corpus: []sim.Clip{{Audio: wav, Text: "hello world"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	r := fingerprint.NewRecorder(fingerprint.RecorderConfig{SampleInterval: 20 * time.Millisecond,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: srv.URL}}})
	ctx := context.Background()
	if err := r.BeforeSweep(ctx, dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := r.ProbeStart(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the first primes the cache, the other two hit it
		transcribe(t, srv.URL, wav)
	}
	if err := r.ProbeEnd(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := r.AfterSweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"before", "after"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(schemas.ProbeMetricsPath("a", 1, when)))); err != nil {
			t.Errorf("the scrape %s the probe: %v", when, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(schemas.CacheProbesFile)))
	if err != nil {
		t.Fatal(err)
	}
	var line schemas.ProbeTelemetry
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	mm := fingerprint.VLLMMMCacheHits
	if line.Target != "a" || line.Probe != 1 || line.ScrapeErrors != nil || line.CacheAfter[mm]-line.CacheBefore[mm] != 2 {
		t.Errorf("line = %+v, want %s to grow by 2", line, mm)
	}
}
