package fingerprint

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// TestEveryEngineCovered: capture asks every self-description path of
// every engine in the table, and the knobs read every knob key of every
// engine, from a served JSON and from a launch command, so a new engine
// row whose knob sources this package does not read fails here.
func TestEveryEngineCovered(t *testing.T) {
	for _, e := range engine.All() {
		for _, path := range append([]string{"/v1/models"}, e.Knobs.Served...) {
			if !slices.Contains(ProbePaths, path) {
				t.Errorf("%s: ProbePaths lacks %s", e.Name, path)
			}
		}
		for _, k := range e.Knobs.Keys {
			if k.Flag != "" {
				cmd := "serve m " + k.Flag
				if !k.Bare {
					cmd += " 7"
				}
				got := DeclaredKnobs(cmd)[k.Knob]
				if got.Source != KnobDeclared || got.From != "launch command "+k.Flag {
					t.Errorf("%s: %s declares %q: %+v", e.Name, k.Flag, k.Knob, got)
				}
			}
			if k.Path != "" {
				// {"a":{"b":7}} for "a.b", served as /get_server_info.
				var v any = 7
				parts := strings.Split(k.Path, ".")
				for i := len(parts) - 1; i >= 0; i-- {
					v = map[string]any{parts[i]: v}
				}
				body, _ := json.Marshal(v)
				got := ServedKnobs([]schemas.Probe{{Path: "/get_server_info", Status: 200, Body: string(body)}})[k.Knob]
				if got.Source != KnobServed || !strings.HasSuffix(got.From, " "+k.Path) {
					t.Errorf("%s: served %s gives %q: %+v", e.Name, k.Path, k.Knob, got)
				}
			}
		}
	}
}
