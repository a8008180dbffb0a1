package verify_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/verify"
)

// TestSimSettingsCompared: two simulators started with different
// --max-running publish it in their /v1/models (benchseal_sim_settings);
// the fingerprint captures it, and the fairness check names it: "not
// shown fair: max running requests 8 vs 48 (simulator settings)". Two
// started alike are held the same.
func TestSimSettingsCompared(t *testing.T) {
	start := func(cfg sim.Config) string {
		s, err := sim.New(cfg)
		must(t, err)
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	for _, tc := range []struct {
		name   string
		a, b   sim.Config
		want   string
		fair   bool
		absent string
	}{
		{name: "differ", a: sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 8}, b: sim.Config{Persona: sim.PersonaSGLangOmni, MaxRunning: 48},
			want: "not shown fair: max running requests 8 vs 48 (simulator settings)"},
		{name: "latency-differs", a: sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 8}, b: sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 8, FailRate: 0.2},
			want: "not shown fair: failure rate 0 vs 0.2 (simulator settings)", absent: "max running requests 8 vs"},
		{name: "alike", a: sim.Config{Persona: sim.PersonaVLLM, MaxRunning: 8}, b: sim.Config{Persona: sim.PersonaSGLangOmni, MaxRunning: 8},
			fair: true, absent: "not shown fair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ua, ub := start(tc.a), start(tc.b)
			dir := damagedRun(t, func(dir string) {
				for target, url := range map[string]string{"a": ua, "b": ub} {
					c := fingerprint.Capture(context.Background(), http.DefaultClient, target, url, nil, "before")
					writeJSONFile(t, dir, "servers/"+target+"/probes-before.json", c)
				}
			})
			rep, err := verify.Dir(context.Background(), dir, verify.Options{})
			must(t, err)
			c := rep.Check(verify.CheckFairness)
			var all []string
			for _, f := range c.Findings {
				all = append(all, f.Reason)
				if strings.Contains(f.Reason, "not shown fair: ") && f.Kind != verify.KindSimSettings {
					t.Errorf("kind %q, want %q: %s", f.Kind, verify.KindSimSettings, f.Reason)
				}
			}
			text := strings.Join(all, "\n")
			if tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("no finding %q in\n%s", tc.want, text)
			}
			if tc.absent != "" && strings.Contains(text, tc.absent) {
				t.Errorf("a finding with %q in\n%s", tc.absent, text)
			}
			if tc.fair && strings.Contains(text, "max running requests differs") {
				t.Errorf("alike settings: %s", text)
			}
		})
	}
}
