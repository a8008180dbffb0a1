package verify_test

// Doctored kinds of issue 23: steady state, sealed and recomputed.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, steadyKinds) }

func steadyKinds() []kind {
	return []kind{
		// The last request of a C=3 step takes 300 ms more: the window is
		// mostly one request in flight. The records are consistent (a slow
		// request is no forgery), so check 7 WARNs with the figures and
		// the requests that would reach steady state.
		{name: "not-steady-state", class: "protocol", check: 7, status: verify.Warn, text: "not at steady state at concurrency 3: mean 1.",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, lastStep, func(t0 int64, m []*schemas.Record) {
					last := m[0]
					for _, r := range m {
						if r.EndNs > last.EndNs {
							last = r
						}
					}
					last.EndNs += 300e6
				})
				refresh(tb, dir)
			},
			// Other steps a busy host kept short of steady state in the
			// base run get findings of their own; the doctored step's is
			// the one held.
			assert: func(tb testing.TB, rep *verify.Report) {
				found := false
				for _, f := range rep.Check(verify.CheckProtocol).Findings {
					if f.Kind != verify.KindNotSteady || f.Path != lastStep {
						continue
					}
					found = true
					if !strings.Contains(f.Reason, "measured requests a repeat would reach it (6 here)") {
						tb.Errorf("finding %q (%s): want the requests needed", f.Reason, f.Path)
					}
				}
				if !found {
					tb.Errorf("no not-steady finding names %s", lastStep)
				}
			}},
		// claims.json claims steady state the records do not show.
		{name: "steady-state-claimed", class: "claims", check: 6, status: verify.Fail, text: "full_concurrency_share",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				l := &cl.Targets[0].Levels[1]
				one := 0.5
				l.Repeats[0].FullConcurrencyShare = &one
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			}},
		// A claims.json sealed before the steady-state figures: not
		// compared (WARN), never a FAIL; check 7 still recomputes them.
		{name: "steady-state-predates", class: "claims", check: 6, status: verify.Warn,
			text: "has no steady-state figures (mean_in_flight, full_concurrency_share) (not computed by the build that sealed it)",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				for i := range cl.Targets {
					for j := range cl.Targets[i].Levels {
						l := &cl.Targets[i].Levels[j]
						for _, m := range append([]*schemas.Metrics{&l.Median, &l.Min, &l.Max}, ptrs(l.Repeats)...) {
							m.MeanInFlight, m.FullConcurrencyShare = nil, nil
						}
					}
				}
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				if c := rep.Check(verify.CheckClaims); c.Status == verify.Fail {
					tb.Errorf("claims without the steady-state figures FAIL: %+v", c.Findings)
				}
			}},
	}
}

func ptrs(ms []schemas.Metrics) []*schemas.Metrics {
	out := make([]*schemas.Metrics, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

func init() { moreKinds = append(moreKinds, simulatorKinds) }

func simulatorKinds() []kind {
	return []kind{
		// The base run measures two simulated servers: nothing doctored
		// but the marker's capture before the run, so only the one after
		// names it; verify still says so (check 8 WARN), never a PASS
		// for "vLLM".
		{name: "simulator-after-only", class: "fairness", check: 8, status: verify.Warn,
			text: "target a is benchseal's simulator (its /v1/models names the vllm persona in benchseal_sim): the figures measure the simulator, not an engine",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, "servers/a/probes-before.json", func(s string) string {
					return strings.ReplaceAll(s, `\"benchseal_sim\":\"vllm\"`, `\"x\":\"vllm\"`)
				})
				writeReport(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				for _, f := range rep.Check(verify.CheckFairness).Findings {
					if f.Kind == verify.KindSimulator && strings.HasPrefix(f.Reason, "target a ") && f.Path != "servers/a/probes-after.json" {
						tb.Errorf("target a's marker read from %s, want probes-after.json", f.Path)
					}
				}
			}},
	}
}
