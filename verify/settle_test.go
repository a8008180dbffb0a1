package verify

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func TestSettleNote(t *testing.T) {
	k := stepKey{"a", 2, 1}
	ev := &evidence{}
	ev.tel.Steps = []schemas.StepTelemetry{
		{Target: "a", Concurrency: 1, Repeat: 1, Settle: map[string]schemas.ScrapeSettle{"after": {Want: 9, Met: true}}},
		{Target: "a", Concurrency: 2, Repeat: 1},
	}
	if got := settleNote(ev, k); got != "" {
		t.Errorf("no settle: %q, want nothing", got)
	}
	ev.tel.Steps[1].Settle = map[string]schemas.ScrapeSettle{"after": {Want: 4, Counted: 2, WaitedNs: 2e9, Scrapes: 23}}
	if got, want := settleNote(ev, k), " (the recorder waited 2s, 23 scrapes, for the server to count 4 and it counted 2)"; got != want {
		t.Errorf("unmet: %q, want %q", got, want)
	}
	ev.tel.Steps[1].Settle["after"] = schemas.ScrapeSettle{Want: 4, Counted: 4, WaitedNs: 51e6, Scrapes: 4, Met: true}
	if got := settleNote(ev, k); !strings.Contains(got, "count 4 of the 4 it waited for, after 51ms, in the scrape it kept") {
		t.Errorf("met: %q", got)
	}
}
