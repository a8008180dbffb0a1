package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMetricsFigures: a task's figures are members of the metrics object
// by name, after the core's, sorted; claims sealed when tts's figures
// were fields of Metrics (rtf_p50, first_audio_p50_s, ...) decode into
// Figures; a figure never shadows a core member.
func TestMetricsFigures(t *testing.T) {
	q := 0.25
	m := Metrics{Requests: 2, Quality: &q, Figures: map[string]float64{"rtf_p50": 0.5, "first_audio_p50_s": 0.1, "requests": 9}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasSuffix(s, `,"first_audio_p50_s":0.1,"rtf_p50":0.5}`) || strings.Count(s, `"requests"`) != 1 || !strings.Contains(s, `"requests":2,`) {
		t.Fatalf("marshalled: %s", s)
	}
	old := `{"requests":3,"succeeded":3,"failed":0,"window_s":1,"req_per_s":3,"rtfx":null,"latency_mean_s":null,"latency_p50_s":null,"latency_p90_s":null,"latency_p95_s":null,"latency_p99_s":null,"latency_max_s":null,"ttfb_p50_s":null,"peak_in_flight":1,"wer":null,"errors":{},"rtf_p50":0.4,"audio_s_per_char":0.07,"telemetry_note":"x"}`
	var got Metrics
	if err := json.Unmarshal([]byte(old), &got); err != nil {
		t.Fatal(err)
	}
	if got.Requests != 3 || len(got.Figures) != 2 || *got.Figure("rtf_p50") != 0.4 || *got.Figure("audio_s_per_char") != 0.07 || got.Figure("first_audio_p50_s") != nil || got.TelemetryNote != "x" {
		t.Fatalf("decoded: %+v", got)
	}
	var none Metrics
	if err := json.Unmarshal([]byte(`{"requests":1}`), &none); err != nil || none.Figures != nil {
		t.Fatalf("a metrics object without figures: %+v, %v", none, err)
	}
}
