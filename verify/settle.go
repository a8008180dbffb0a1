package verify

import (
	"fmt"
	"time"
)

// settleNote says, for a finding that the server counted fewer requests
// than the records, how the recorder waited before keeping the step's
// after scrape (telemetry/steps.jsonl settle, internal/fingerprint's
// Recorder): engines count a request just after answering it, and a run
// that did not wait could have scraped too early. "" when the line says
// nothing of it.
func settleNote(ev *evidence, k stepKey) string {
	for _, st := range ev.tel.Steps {
		if st.Target != k.target || st.Concurrency != k.concurrency || st.Repeat != k.repeat {
			continue
		}
		s, ok := st.Settle["after"]
		switch {
		case !ok:
			return ""
		case s.Met:
			return fmt.Sprintf(" (the recorder saw the server count %g of the %d it waited for, after %s, in the scrape it kept)",
				s.Counted, s.Want, time.Duration(s.WaitedNs).Round(time.Millisecond))
		default:
			return fmt.Sprintf(" (the recorder waited %s, %d scrapes, for the server to count %d and it counted %g)",
				time.Duration(s.WaitedNs).Round(time.Millisecond), s.Scrapes, s.Want, s.Counted)
		}
	}
	return ""
}
