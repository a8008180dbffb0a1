package verify

import (
	"path"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// KindSimulator: a target answered as benchseal's simulator (check 8,
// WARN): its /v1/models, as the fingerprint captured it, carries
// engine.SimulatorField. The bundle verifies, but its figures measure the
// simulator, not the engine it imitates.
const KindSimulator Kind = "simulator"

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
