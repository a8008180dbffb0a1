package fingerprint

import (
	"slices"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
)

// TestEveryEngineCovered: capture asks every self-description path of
// every engine in the table, and Knobs understands every launch flag of
// every engine, so a new engine row whose knob sources this package does
// not read fails here.
func TestEveryEngineCovered(t *testing.T) {
	for _, e := range engine.All() {
		for _, path := range append([]string{"/v1/models"}, e.Knobs.Served...) {
			if !slices.Contains(ProbePaths, path) {
				t.Errorf("%s: ProbePaths lacks %s", e.Name, path)
			}
		}
		for _, flag := range e.Knobs.Flags {
			if !slices.ContainsFunc(knobKeys, func(k knobKey) bool { return k.flag == flag }) {
				t.Errorf("%s: launch flag %s is in no knobKey", e.Name, flag)
			}
		}
	}
}
