package fingerprint_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	if perturbed.CacheHits == nil || *perturbed.CacheHits != 0 || same.CacheHits == nil || *same.CacheHits != 1 || same.CacheCounter != fingerprint.VLLMMMCacheHits {
		t.Errorf("cache hits: perturbed %+v, identical %+v", perturbed, same)
	}
	if same.HostCPUMean == nil && !strings.Contains(strings.Join(same.Notes, ""), "telemetry") {
		t.Errorf("step without host telemetry or a note: %+v", same)
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
