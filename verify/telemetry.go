package verify

import (
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// telemetryNotObserved says which level/repeats of recomputed claims have
// no telemetry figures because their window held fewer than 2 samples
// (claims.TelemetryNotObserved), so that check 6 does not let "recomputed
// equal" read as "telemetry shown"; "" when there are none.
func telemetryNotObserved(cl schemas.Claims) string {
	var where []string
	total, short := 0, 0
	for _, t := range cl.Targets {
		for _, l := range t.Levels {
			n := 0
			for _, m := range l.Repeats {
				total++
				if m.TelemetryNote == claims.TelemetryNotObserved {
					n++
					short++
				}
			}
			if n > 0 { // claims.json does not number the repeats it has
				where = append(where, fmt.Sprintf("%s c=%d: %d of %d repeats", t.Target, l.Concurrency, n, len(l.Repeats)))
			}
		}
	}
	if len(where) == 0 {
		return ""
	}
	const show = 3
	list := strings.Join(where[:min(len(where), show)], ", ")
	if len(where) > show {
		list += fmt.Sprintf(" and %d more", len(where)-show)
	}
	return fmt.Sprintf("telemetry %s in %d of %d level/repeats (%s)", claims.TelemetryNotObserved, short, total, list)
}
