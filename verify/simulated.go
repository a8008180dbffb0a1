package verify

import (
	"path"
	"strings"

	"github.com/benchseal/benchseal/internal/fingerprint"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// KindSimulator: a target answered as benchseal's simulator (check 8,
// WARN): its /v1/models, as the fingerprint captured it, carries
// engine.SimulatorField. The bundle verifies, but its figures measure the
// simulator, not the engine it imitates.
const KindSimulator Kind = "simulator"

// KindSimSettings: targets answered as benchseal's simulator started with
// different settings (check 8, WARN): a simulated result is what its
// settings make it, so a comparison of two differently set simulators is
// not shown fair (checkKnobs).
const KindSimSettings Kind = "simulator-settings"

// checkSimulated (check 8) WARNs of every target whose captured /v1/models
// (probes-before.json, else probes-after.json) names benchseal's
// simulator.
func checkSimulated(c *Check, ev *evidence) {
	for _, t := range ev.run.Targets {
		for _, when := range []string{"before", "after"} {
			persona := SimulatedPersona(capture(ev, t.Name, when))
			if persona == "" {
				continue
			}
			c.warnKindf(KindSimulator, path.Join("servers", t.Name, "probes-"+when+".json"),
				"target %s is benchseal's simulator (its /v1/models names the %s persona in %s): the figures measure the simulator, not an engine", t.Name, persona, engine.SimulatorField)
			break
		}
	}
}

// SimulatedPersona is the persona benchseal's simulator names in a
// capture's /v1/models answer, "" when the capture is not the simulator's
// (or there is none).
func SimulatedPersona(sc *schemas.ServerCapture) string {
	if sc == nil {
		return ""
	}
	for _, p := range sc.Probes {
		if p.Path == "/v1/models" && p.Status == 200 {
			return engine.Simulated(p.Body)
		}
	}
	return ""
}

// SimSettingsDiffer names the compared settings benchseal's simulator
// published (fingerprint.SimSettingKnobs) that differ between captures,
// as "<setting> <a> vs <b>" in engine.SimSettings order; nil when fewer
// than two captures published settings, or they agree. The report's
// simulated banner names them (the fairness check words the same).
func SimSettingsDiffer(caps []*schemas.ServerCapture) []string {
	var sides [][]fingerprint.Knob
	for _, sc := range caps {
		if sc == nil {
			continue
		}
		if ks := fingerprint.SimSettingKnobs(sc.Probes); ks != nil {
			sides = append(sides, ks)
		}
	}
	if len(sides) < 2 {
		return nil
	}
	var out []string
	for i := range sides[0] {
		var values []string
		differs := false
		for _, side := range sides {
			if i >= len(side) || side[i].Source != fingerprint.KnobServed {
				values = nil
				break
			}
			values = append(values, side[i].Value)
			differs = differs || side[i].Value != values[0]
		}
		if differs && values != nil {
			out = append(out, sides[0][i].Name+" "+strings.Join(values, " vs "))
		}
	}
	return out
}
