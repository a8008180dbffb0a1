package verify

import (
	"fmt"
	"math"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// KindNotSteady: a step's measured window never reached steady state at
// its concurrency (check 7, WARN): its throughput is that of a ramp and a
// drain, not of C requests in flight.
const KindNotSteady Kind = "not-steady-state"

// KindSurvivors: fewer than half of a step's measured requests succeeded
// (check 7, WARN): its figures are those of the requests that survived
// the load, not of the load.
const KindSurvivors Kind = "survivors"

// checkSteady (check 7) recomputes from the records the step's mean in
// flight (Σ latency / window, Little's law) and the share of its window
// with all C workers busy (claims.SteadyState, the figures claims.json
// carries) and WARNs when they fall short of claims.Steady, naming both
// and the measured requests a repeat would need (claims.SteadyRequests).
// It is a WARN, not a FAIL: the records are what the run measured; the
// figure that misleads is a throughput read as the server's at C.
func checkSteady(c *Check, f string, recs []schemas.Record, conc int) {
	mean, full, ok := claims.SteadyState(recs, conc)
	if !ok {
		return
	}
	n := 0
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			n++
		}
	}
	m := schemas.Metrics{Requests: n, MeanInFlight: &mean, FullConcurrencyShare: &full}
	if steady, _ := claims.Steady(m, conc); steady {
		return
	}
	c.warnKindf(KindNotSteady, f, "not at steady state at concurrency %d: mean %s of %d in flight (Σ latency / window; steady is at least %s), all %d busy for %s of the window (at least %.0f %%): its throughput is partly ramp and drain; about %d measured requests a repeat would reach it (%d here)",
		conc, oneDecimal(mean), conc, oneDecimal(claims.SteadyMeanShare*float64(conc)), conc, percent(full), claims.SteadyFullShare*100, claims.SteadyRequests(m, conc), n)
}

func oneDecimal(x float64) string { return fmt.Sprintf("%.1f", math.Round(x*10)/10) }

func percent(x float64) string { return fmt.Sprintf("%.0f %%", 100*x) }
