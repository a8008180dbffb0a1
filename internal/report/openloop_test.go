package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// An open-loop run's report says so in its protocol line and shows the
// open-loop table from claims.json; a closed loop's shows neither.
func TestOpenLoopTable(t *testing.T) {
	md, _, _ := render(t, fixture())
	if section(string(md), "Open loop") != "" || strings.Contains(string(md), "open loop at") {
		t.Fatal("a closed-loop report shows the open-loop table or protocol")
	}
	in := fixture()
	p := &in.Run.Protocol
	p.Mode, p.Burstiness, p.MaxConcurrency = schemas.ModeOpen, "1", 8
	for range p.Levels {
		p.RequestRates = append(p.RequestRates, float64(10*(len(p.RequestRates)+1)))
	}
	f := func(x float64) *float64 { return &x }
	l := &in.Claims.Targets[0].Levels[0]
	l.Median.OfferedRate, l.Median.SendRate = f(10), f(9.87)
	l.Median.LatenessP50S, l.Median.LatenessP99S = f(0.0004), f(0.0123)
	l.Median.ArrivalLatencyP50S, l.Median.ArrivalLatencyP99S = f(0.25), f(0.75)
	md, _, _ = render(t, in)
	m := string(md)
	if !strings.Contains(m, "Protocol: open loop at offered rates 10, 20") || !strings.Contains(m, "at most 8 in flight") {
		t.Errorf("protocol line: %s", m[strings.Index(m, "Protocol:"):][:200])
	}
	sec := section(m, "Open loop")
	row := "| " + strconv.Itoa(l.Concurrency) + " | " + in.Claims.Targets[0].Target + " | 10.0 | 9.87 | 0.400 | 12.3 | 250 | 750 |"
	if !strings.Contains(sec, row) {
		t.Errorf("open-loop table lacks %q:\n%s", row, sec)
	}
	// With --slo, a goodput column and its limits.
	e2e := 0.5
	p.SLO = &schemas.SLO{E2ES: &e2e}
	l.Median.Goodput = f(7.5)
	md, _, _ = render(t, in)
	sec = section(string(md), "Open loop")
	if !strings.Contains(sec, row+" 7.50 |") || !strings.Contains(sec, "meeting e2e ≤ 500 ms, from the planned arrival") {
		t.Errorf("open-loop table with an SLO:\n%s", sec)
	}
}
