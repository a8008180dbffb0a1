package schemas_test

import (
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func TestLayout(t *testing.T) {
	if got := schemas.RecordsPath("vllm", 16, 2); got != "records/vllm/c16-r2.jsonl" || !schemas.IsRecords(got) {
		t.Errorf("RecordsPath = %q", got)
	}
	if got := schemas.MetricsPath("a", 1, 3, "before"); got != "servers/a/metrics/c1-r3-before.prom" {
		t.Errorf("MetricsPath = %q", got)
	}
	for name, want := range map[string]bool{
		"records/a/c1-r1.jsonl": true, "records/c1-r1.jsonl": false, "records/a/b/c1-r1.jsonl": false, "records/a/x.json": false,
	} {
		if schemas.IsRecords(name) != want {
			t.Errorf("IsRecords(%q) = %v", name, !want)
		}
	}
	for name, want := range map[string]bool{
		"servers/a/probes-before.json": true, "servers/probes-before.json": false, "servers/a/b/probes-before.json": false, "x/a/probes-before.json": false,
	} {
		if schemas.IsProbesBefore(name) != want {
			t.Errorf("IsProbesBefore(%q) = %v", name, !want)
		}
	}
	if p := schemas.InputPath("ab"); p != "inputs/ab.wav" || !schemas.IsInput(p) || schemas.IsInput("inputs/ab.txt") {
		t.Errorf("InputPath = %q", p)
	}
}

func TestProbeRecordsPath(t *testing.T) {
	p := schemas.ProbeRecordsPath("sglang", 1)
	if p != "records/sglang/probe-1.jsonl" || !schemas.IsProbeRecords(p) || !schemas.IsRecords(p) {
		t.Errorf("ProbeRecordsPath = %q", p)
	}
	if schemas.IsProbeRecords(schemas.RecordsPath("sglang", 1, 1)) {
		t.Error("a sweep step's records file is taken for a probe's")
	}
}

func TestProbeMetricsPath(t *testing.T) {
	if p := schemas.ProbeMetricsPath("a", 1, "after"); p != "servers/a/metrics/probe-1-after.prom" {
		t.Errorf("ProbeMetricsPath = %q", p)
	}
	if schemas.CacheProbesFile != "telemetry/cache-probes.jsonl" {
		t.Errorf("CacheProbesFile = %q", schemas.CacheProbesFile)
	}
}

func TestServerEventsPaths(t *testing.T) {
	for _, p := range []string{schemas.StagesPath("v", 8, 2), schemas.OTLPExportPath("v", 3), schemas.ProfilerEventsPath("s", 1, 1, "events_thinker_123.jsonl")} {
		if !schemas.IsServerEvents(p) || schemas.IsRecords(p) || schemas.IsProbesBefore(p) {
			t.Errorf("%q: IsServerEvents %v IsRecords %v", p, schemas.IsServerEvents(p), schemas.IsRecords(p))
		}
	}
	if p := schemas.StagesPath("v", 8, 2); p != "servers/v/stages/c8-r2.jsonl" || !schemas.IsStages(p) {
		t.Errorf("StagesPath = %q", p)
	}
	for _, p := range []string{"servers/v/stages/x.jsonl", "servers/v/otlp/export-1.json", "servers/v/events/c1-r1/../x.jsonl", "records/v/stages/c1-r1.jsonl"} {
		if schemas.IsServerEvents(p) {
			t.Errorf("IsServerEvents(%q) = true", p)
		}
	}
	if schemas.IsStages(schemas.OTLPExportPath("v", 1)) {
		t.Error("an OTLP export taken for a stages file")
	}
}
