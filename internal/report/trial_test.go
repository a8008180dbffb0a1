package report

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// Tests for the new-user trial's report findings (notes/trial.md 2, 10).

func mdOf(t *testing.T, in Input) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Markdown(&buf, in); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// caveatsOf is the Markdown of the caveats box.
func caveatsOf(md string) string {
	i := strings.Index(md, "> **Caveats**")
	if i < 0 {
		i = strings.Index(md, "> **注意事项**")
	}
	if i < 0 {
		return ""
	}
	rest := md[i:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// setCacheHits sets every repeat's cache_hits of target tg at level c
// (c == 0: every level) and re-summarizes.
func setCacheHits(in *Input, tg string, c int, hits *float64) {
	for ti := range in.Claims.Targets {
		if in.Claims.Targets[ti].Target != tg {
			continue
		}
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			if c != 0 && l.Concurrency != c {
				continue
			}
			for ri := range l.Repeats {
				l.Repeats[ri].CacheHits = hits
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
}

// The title names the targets in the conclusion's order (the faster
// first), whatever order run.json and claims.json list them in, and the
// rule names one fixed direction: the first-named over the second, at
// every level (issue 24: a "faster over slower" rule beside a 0.56×
// cell contradicted itself).
func TestTitleOrderFollowsConclusion(t *testing.T) {
	in := fixture()
	slices.Reverse(in.Claims.Targets) // vllm-omni (slower) first
	slices.Reverse(in.Run.Targets)
	md := mdOf(t, in)
	title := md[:strings.Index(md, "\n")]
	if !strings.Contains(title, "sglang-omni vs vllm-omni") {
		t.Errorf("title %q does not put the faster target first", title)
	}
	// The headline is report.html's; REPORT.md's table says it.
	if !strings.Contains(string(pageMarkdown(t, in)), "**Throughput, sglang-omni vs vllm-omni:**") || strings.Contains(md, "**Throughput, ") {
		t.Errorf("conclusion does not put the faster target first (or REPORT.md repeats its table in a headline)")
	}
	if strings.Contains(md, "the faster target over the slower") || !strings.Contains(md, "successful requests per second over repeats, first target over second.") {
		t.Errorf("the rule misnames the numerator")
	}
}

// A long verify finding is shown whole: its end is what to do.
func TestCaveatNotClipped(t *testing.T) {
	in := fixture()
	in.Verify = fixtureVerify()
	long := "max running requests differs: " + strings.Repeat("sglang-omni has 16 by its launch command; ", 8) + "SGLang-Omni has no self-describing endpoint: pass --server-config to record its settings"
	in.Verify.Checks[7].Findings = append(in.Verify.Checks[7].Findings, verify.Finding{Status: verify.Warn, Path: "claims.json", Reason: long})
	md := mdOf(t, in)
	if !strings.Contains(md, "pass --server-config to record its settings") || strings.Contains(caveatsOf(md), "…") {
		t.Errorf("the finding was clipped:\n%s", caveatsOf(md))
	}
}

// "Cache hits not observable" is said once: verify's fairness check says
// it when it ran; the report's own line only without verify.
func TestCacheNotObservableOnce(t *testing.T) {
	in := fixture()
	setCacheHits(&in, "sglang-omni", 0, nil)
	in.Verify = fixtureVerify()
	in.Verify.Checks[7].Findings = append(in.Verify.Checks[7].Findings, verify.Finding{Status: verify.Warn, Path: "claims.json",
		Reason: "cache hits not observable for sglang-omni: no known cache counter in its /metrics before and after each step (cache_hits is null)"})
	if n := strings.Count(strings.ToLower(caveatsOf(mdOf(t, in))), "not observable"); n != 1 {
		t.Errorf("cache hits not observable said %d times in the caveats, want once", n)
	}
	in.Verify = nil
	if n := strings.Count(strings.ToLower(caveatsOf(mdOf(t, in))), "not observable"); n != 1 {
		t.Errorf("without verify: said %d times, want once", n)
	}
}

// The protocol paragraph claims no cache answered only where that was
// observed, says where the premise failed or is not observable, and
// names the seed.
func TestProtocolCacheProof(t *testing.T) {
	for _, tc := range []struct {
		name string
		hits *float64
		want string
	}{
		{"counted none", ptr(0.0), "so within this run no server answered from a cache it counts"},
		{"counted hits", ptr(13.0), "The premise that no server answered from a cache failed: sglang-omni counted 195 cache hits"},
		{"no counter", nil, "Whether sglang-omni answered from a cache is not observable (no cache-hit counter)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture()
			setCacheHits(&in, "sglang-omni", 0, tc.hits)
			md := mdOf(t, in)
			if !strings.Contains(md, tc.want) {
				t.Errorf("missing %q", tc.want)
			}
			if strings.Contains(md, "so no server could answer from a cache") {
				t.Errorf("the unconditional cache-proof sentence is back")
			}
			if !strings.Contains(md, "seed (42, in run.json)") || !strings.Contains(md, "re-sends the same variants") {
				t.Errorf("the seed caveat is missing")
			}
			if tc.hits != nil && *tc.hits == 0 && strings.Contains(md, "premise") {
				t.Errorf("premise said failed with no hits")
			}
		})
	}
}

// Cache hits counted with perturbation on make that level not
// comparable, never "ahead by 8398 %" (trial finding 2); without
// perturbation the run is flagged as a whole instead.
func TestCacheHitsNotComparable(t *testing.T) {
	in := fixture()
	setCacheHits(&in, "sglang-omni", 1, ptr(13.0))
	con := section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "| 1 | 1.22× | — | not comparable: sglang-omni counted 39 cache hits |") {
		t.Errorf("C = 1 is not marked not comparable:\n%s", con)
	}
	if con := section(string(pageMarkdown(t, in)), "Conclusion"); !strings.Contains(con, "at C = 1: not comparable: sglang-omni counted 39 cache hits; at C = 2, 4, 8, 16: sglang-omni ahead") {
		t.Errorf("summary line:\n%s", con)
	}
	in.Run.Protocol.Perturb = false
	if con := section(mdOf(t, in), "Conclusion"); strings.Contains(con, "cache hits |") {
		t.Errorf("without perturbation the cache rule applied:\n%s", con)
	}
}

// A prefix cache's token counter never makes a level not comparable:
// the engine row says it counts tokens reused, not requests answered
// from a cache (plain SGLang's only counter), and the caveats say so as
// a fact; the multimodal counter (whole inputs) still does.
func TestCacheTokensComparable(t *testing.T) {
	for _, tc := range []struct {
		counter string
		want    string
		not     string
	}{
		{engine.SGLangCachedTokens, `**Prefix cache:** sglang-omni reused 39 prompt tokens (sglang:cached\_tokens\_total)`, "not comparable: sglang-omni"},
		{engine.VLLMPrefixCacheHits, `reused 39 prompt tokens (vllm:prefix\_cache\_hits\_total)`, "not comparable: sglang-omni"},
		{engine.VLLMMMCacheHits, "not comparable: sglang-omni counted 39 cache hits", "Prefix cache:"},
	} {
		t.Run(tc.counter, func(t *testing.T) {
			in := fixture()
			setCacheHits(&in, "sglang-omni", 1, ptr(13.0))
			for ti := range in.Claims.Targets {
				for li := range in.Claims.Targets[ti].Levels {
					l := &in.Claims.Targets[ti].Levels[li]
					for ri := range l.Repeats {
						l.Repeats[ri].CacheHitsCounter = tc.counter
					}
					l.Median, l.Min, l.Max = summarize(l.Repeats)
					l.Median.CacheHitsCounter, l.Min.CacheHitsCounter, l.Max.CacheHitsCounter = tc.counter, tc.counter, tc.counter // as claims summarizes
				}
			}
			md := mdOf(t, in)
			if !strings.Contains(md, tc.want) {
				t.Errorf("missing %q:\n%s", tc.want, section(md, "Conclusion"))
			}
			// The cache table says the unit where it is tokens.
			if tokens := strings.Contains(section(md, "Server cache hits"), "| 13.0 prompt tokens |"); tokens != (tc.counter != engine.VLLMMMCacheHits) {
				t.Errorf("cache table says tokens: %v:\n%s", tokens, section(md, "Server cache hits"))
			}
			if strings.Contains(md, tc.not) {
				t.Errorf("says %q:\n%s", tc.not, section(md, "Conclusion"))
			}
		})
	}
}

// records makes each repeat's measured records of the fixture: n
// successful requests with latencies spread around the repeat's p50,
// sent as a closed loop of C workers does (each free worker takes the
// next request at once), so that no client stalled.
func records(in Input) []schemas.Record {
	var recs []schemas.Record
	for _, tc := range in.Claims.Targets {
		for _, l := range tc.Levels {
			for ri := range l.Repeats {
				free := make([]int64, l.Concurrency)
				for i := range 40 {
					d := int64(1e9 * 0.3 * (0.6 + 0.8*float64((i*7)%40)/40))
					w := 0
					for k := range free {
						if free[k] < free[w] {
							w = k
						}
					}
					recs = append(recs, schemas.Record{Target: tc.Target, Concurrency: l.Concurrency, Repeat: ri + 1, Seq: i, Worker: w,
						Phase: schemas.PhaseMeasure, OK: true, StartNs: free[w], EndNs: free[w] + d})
					free[w] += d
				}
			}
		}
	}
	return recs
}

// With 2 repeats the interval column says what it rests on: requests
// within the repeats when the records were read, the range over 2
// repeats when not; never a bare "95 % interval".
func TestIntervalBasisNamed(t *testing.T) {
	in := fixture()
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			l.Repeats = l.Repeats[:2]
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	con := section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "| range over this run's 2 repeats |") || !strings.Contains(con, "The interval is the range of the ratio over repeats") {
		t.Errorf("without records:\n%s", con)
	}
	in.Records = records(in)
	con = section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "| interval from requests within this run's 2 repeats |") || !strings.Contains(con, "Interval: a seeded bootstrap over requests and repeats") {
		t.Errorf("with records:\n%s", con)
	}
	// The header says the same when no level had an interval.
	setCacheHits(&in, "sglang-omni", 0, ptr(1.0))
	if con := section(mdOf(t, in), "Conclusion"); !strings.Contains(con, "| interval from requests within this run's 2 repeats |") {
		t.Errorf("every level not comparable, with records:\n%s", con)
	}
	if strings.Contains(con, "| 95 % interval") {
		t.Errorf("a 95 %% label from 2 repeats:\n%s", con)
	}
}

// A Chinese report translates what verify's finding kinds fix, and says
// where it shows verify's English words; the telemetry section is
// translated too.
func TestZhFindingsAndTelemetry(t *testing.T) {
	in := fixture()
	in.Lang = "zh"
	in.Verify = fixtureVerify()
	in.Verify.Checks[1].Status = verify.Warn
	in.Verify.Checks[1].Findings = []verify.Finding{{Status: verify.Warn, Kind: verify.KindUnpinned, Path: "bundle.pub",
		Reason: "signer unpinned: verified with the key the bundle carries, which proves it intact, not who sealed it"}}
	md := mdOf(t, in)
	cav := caveatsOf(md)
	if strings.Contains(cav, "signer unpinned") || !strings.Contains(cav, "签名者未固定") {
		t.Errorf("the unpinned finding is not translated:\n%s", cav)
	}
	for _, line := range strings.Split(cav, "\n") {
		if strings.Contains(line, "max running requests differs") && !strings.Contains(line, "benchseal verify 的原文") {
			t.Errorf("verify's English shown without a lead-in: %s", line)
		}
	}
	if !strings.Contains(md, "## 遥测") || strings.Contains(md, "Sampled during measurement") || strings.Contains(md, "GPU util mean") {
		t.Errorf("the telemetry section is not translated:\n%s", section(md, "遥测"))
	}
}

// A target with fewer repeats than the other (one, as when it stopped
// early): the verdict never says "no interval" beside an interval, and the
// interval's header names the pair's repeats, not the run's most.
func TestSingleRepeatWordsMatchTable(t *testing.T) {
	in := fixture()
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			l.Repeats = l.Repeats[:2]
			if ti == 1 {
				l.Repeats = l.Repeats[:1]
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	in.Records = records(in)
	con := section(mdOf(t, in), "Conclusion")
	if strings.Contains(con, "no interval") || strings.Contains(con, "within 2 repeats") {
		t.Errorf("words or header contradict the table:\n%s", con)
	}
	if !strings.Contains(con, "| interval from requests within this run's 1–2 repeats |") ||
		!regexp.MustCompile(`\| [0-9.]+×–[0-9.]+× \| single repeat: no lead claimed from one window \(the interval is over its requests only\) \|`).MatchString(con) {
		t.Errorf("with records:\n%s", con)
	}
	// Without the records there is no interval, and the words say so.
	in.Records = nil
	con = section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "| — | single repeat: one observation, no interval |") || !strings.Contains(con, "| range over this run's 1–2 repeats |") {
		t.Errorf("without records:\n%s", con)
	}
}

// A lead no larger than the minimum effect is "within noise", never
// "ahead by"; --min-effect moves the line (issue 23).
func TestConclusionWithinNoise(t *testing.T) {
	in := fixture()
	in.Records = nil
	// Both targets' repeats within 0.2 % of each other, vllm-omni at 97 %
	// of sglang-omni's throughput: apart, by 3 %.
	for ti := range in.Claims.Targets {
		scale := 1.0
		if in.Claims.Targets[ti].Target == "vllm-omni" {
			scale = 0.97
		}
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for ri := range l.Repeats {
				l.Repeats[ri].ReqPerS = 10 * scale * (1 + 0.001*float64(ri))
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	md := mdOf(t, in)
	if strings.Contains(md, " ahead by ") || !strings.Contains(string(pageMarkdown(t, in)), "at C = 1, 2, 4, 8, 16: within noise (±5 %)") || !strings.Contains(md, "| 16 | 1.03× | 1.03×–1.03× | within noise (±5 %) |") {
		t.Errorf("a 3 %% lead is called a lead:\n%s", md[:strings.Index(md, "Caveats")])
	}
	in.MinEffect = 0.01
	if md := mdOf(t, in); !strings.Contains(md, "sglang-omni ahead by 3.1 %") {
		t.Errorf("with --min-effect 1 %% the lead is named where the repeats are apart:\n%s", md[:strings.Index(md, "Caveats")])
	}
}

// unsteady makes every repeat of target tg at level c short of steady
// state: mean 0.6·C in flight, all C busy for half the window.
func unsteady(in *Input, tg string, c int) {
	for ti := range in.Claims.Targets {
		if in.Claims.Targets[ti].Target != tg {
			continue
		}
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			if l.Concurrency != c {
				continue
			}
			for ri := range l.Repeats {
				l.Repeats[ri].MeanInFlight, l.Repeats[ri].FullConcurrencyShare = ptr(0.6*float64(c)), ptr(0.5)
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
}

// A level whose window never reached steady state gets no lead, but the
// steady-state shortfall and the requests that would reach it, in the
// verdict and the caveats; claims without the figures say the check was
// not made (issue 23).
func TestConclusionNotSteady(t *testing.T) {
	in := fixture()
	unsteady(&in, "vllm-omni", 8)
	md := mdOf(t, in)
	// The fixture has 256 requests a repeat at C = 8: mean 4.8 of 8
	// needs (8−4.8)/0.8 = 4× the window, the share (1−0.5)/0.2 = 2.5×.
	want := "| 8 | "
	i := strings.Index(md, want)
	if i < 0 {
		t.Fatal("no C = 8 row")
	}
	row := md[i : i+strings.Index(md[i:], "\n")]
	if !strings.Contains(row, "not at steady state (mean 4.8 of 8 in flight): run ≥ 1024 requests") || strings.Contains(row, "ahead") {
		t.Errorf("C = 8 row: %s", row)
	}
	if !strings.Contains(caveatsOf(md), "**Not at steady state:** vllm-omni at C = 8 (mean 4.8 of 8 in flight, all 8 busy for 50 % of the window; run ≥ 1024 requests)") {
		t.Errorf("caveats:\n%s", caveatsOf(md))
	}
	if strings.Contains(md, "Steady state not checked") {
		t.Error("claims with the figures: the check was made")
	}

	old := fixture()
	for ti := range old.Claims.Targets {
		for li := range old.Claims.Targets[ti].Levels {
			l := &old.Claims.Targets[ti].Levels[li]
			for ri := range l.Repeats {
				l.Repeats[ri].MeanInFlight, l.Repeats[ri].FullConcurrencyShare = nil, nil
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	md = mdOf(t, old)
	if !strings.Contains(caveatsOf(md), "**Steady state not checked:** claims.json carries no mean in flight (not computed by the build that sealed it)") || strings.Contains(md, "not at steady state (mean") {
		t.Errorf("claims sealed before the figures:\n%s", caveatsOf(md))
	}
}

// A target that answered as benchseal's simulator is named under the
// title, and verify's finding of it is not repeated in the caveats.
func TestSimulatedServers(t *testing.T) {
	in := fixture()
	if md := mdOf(t, in); strings.Contains(md, "Simulated servers") {
		t.Fatal("the fixture's engines are called simulated")
	}
	in.Servers[0].Probes[0].Body = `{"object":"list","data":[{"id":"Qwen/Qwen3-ASR-1.7B"}],"benchseal_sim":"vllm-omni"}`
	in.Verify = fixtureVerify()
	in.Verify.Checks[7].Findings = append(in.Verify.Checks[7].Findings, verify.Finding{Status: verify.Warn, Kind: verify.KindSimulator, Reason: "target vllm-omni is benchseal's simulator"})
	md := mdOf(t, in)
	head := md[:strings.Index(md, "## Conclusion")]
	if !strings.Contains(head, "**Simulated servers.** vllm-omni answered as benchseal's simulator") {
		t.Errorf("first screen:\n%s", head)
	}
	if strings.Contains(caveatsOf(md), "is benchseal's simulator") {
		t.Errorf("said twice:\n%s", caveatsOf(md))
	}
}

// Two simulators started with different settings: the banner names what
// differs (their /v1/models' benchseal_sim_settings), as verify's
// fairness check does; alike settings add nothing.
func TestSimulatedSettingsBanner(t *testing.T) {
	in := fixture()
	models := func(persona string, running int, fail float64) string {
		return fmt.Sprintf(`{"object":"list","data":[{"id":"Qwen/Qwen3-ASR-1.7B"}],"benchseal_sim":%q,"benchseal_sim_settings":{"persona":%q,"max_running":%d,"fail_rate":%v,"cache":true}}`,
			persona, persona, running, fail)
	}
	in.Servers[0].Probes[0].Body = models("vllm-omni", 8, 0)
	in.Servers[1].Probes[0].Body = models("sglang-omni", 48, 0)
	head := mdOf(t, in)
	head = head[:strings.Index(head, "## Conclusion")]
	if !strings.Contains(head, "Their simulator settings differ (sglang-omni vs vllm-omni: max running requests 48 vs 8), so the comparison is not shown fair") {
		t.Errorf("first screen:\n%s", head)
	}

	// Verified: verify's finding of the same settings is not a caveat
	// again; the fairness line says what follows from them, beside what
	// was not observed, and SUMMARY.md (without the banner's list) lists
	// them.
	in.Verify = &verify.Report{Source: "evidence.tar.zst", Kind: "bundle", Pinned: true}
	in.Verify.Checks = append(in.Verify.Checks, verify.Check{ID: verify.CheckFairness, Name: "fairness", Status: verify.Warn, Findings: []verify.Finding{
		{Status: verify.Warn, Kind: verify.KindSimSettings, Path: "servers/", Reason: "not shown fair: max running requests 48 vs 8 (simulator settings): sglang-omni 48 (served: /v1/models benchseal_sim_settings.max_running (simulator settings)); vllm-omni 8 (served: /v1/models benchseal_sim_settings.max_running (simulator settings))"},
		{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Reason: "dtype: not observed on any target"},
	}})
	md := mdOf(t, in)
	if n := strings.Count(md, "max running requests 48 vs 8"); n != 1 || strings.Contains(caveatsOf(md), "simulator settings") {
		t.Errorf("the settings said %d times, want once, under the title:\n%s", n, md)
	}
	con := section(md, "Conclusion")
	if !strings.Contains(con, "> **Not shown fair:** the simulator settings under the title differ; a lead may come from them, not an engine. **Fairness not observable:** dtype (on no target).") {
		t.Errorf("the fairness line:\n%s", con)
	}
	if !strings.Contains(md[:strings.Index(md, "## Conclusion")], "Their simulator settings differ (sglang-omni vs vllm-omni: max running requests 48 vs 8).") {
		t.Errorf("the banner, verified:\n%s", md)
	}
	var sum bytes.Buffer
	if err := Summary(&sum, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "**Not shown fair:** their simulator settings differ (sglang-omni vs vllm-omni: max running requests 48 vs 8); a lead may come from them, not an engine.") {
		t.Errorf("SUMMARY.md's fairness line:\n%s", sum.String())
	}

	in.Verify = nil
	in.Servers[1].Probes[0].Body = models("sglang-omni", 8, 0)
	if md := mdOf(t, in); strings.Contains(md, "settings differ") {
		t.Errorf("alike settings named as differing:\n%s", md)
	}
}

// The client as a suspect, from its own evidence: a repeat whose client
// host CPU mean reached 90 % while benchseal used 2 % is the milder
// "busy" caveat with benchseal's share; the same host with records whose
// workers' gaps show a stall is "saturated", with the advice; a load
// average only verify saw (the host samples) is said in the same line,
// in verify's words, and not again under the protocol check; an
// unsaturated run says nothing.
func TestClientSaturatedCaveat(t *testing.T) {
	in := fixture()
	if c := caveatsOf(mdOf(t, in)); strings.Contains(c, "saturated") {
		t.Errorf("unsaturated fixture has a saturation caveat:\n%s", c)
	}
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			if l.Concurrency != 4 {
				continue
			}
			for ri := range l.Repeats {
				l.Repeats[ri].HostCPUMean = ptr(95.0 + float64(ri))
				l.Repeats[ri].ClientCPUMean = ptr(2.0)
			}
		}
	}
	busy := "**Client host busy:** host CPU mean ≥ 90 % at C = 4 (up to 97 %), but benchseal used 2.0 % of its CPUs: the load it sent is not in doubt."
	if c := caveatsOf(mdOf(t, in)); !strings.Contains(c, busy) || strings.Contains(c, "saturated") {
		t.Errorf("missing %q (or saturated too):\n%s", busy, c)
	}
	// Records of the C=4 step whose 4 workers wait 3 ms before each 1 s
	// request: a dispatch-gap p99 above 1 ms, but the load was 99.8 % of
	// C (claims.StalledIdleShare): still busy, not saturated.
	stepRecords := func(gap, lat int64) []schemas.Record {
		var recs []schemas.Record
		for w := range 4 {
			at := int64(0)
			for k := range 3 {
				recs = append(recs, schemas.Record{Target: in.Claims.Targets[0].Target, Concurrency: 4, Repeat: 1, Phase: schemas.PhaseMeasure,
					Seq: 4*k + w, Worker: w, StartNs: at, EndNs: at + lat, OK: true, Status: 200})
				at += lat + gap
			}
		}
		return recs
	}
	base := in.Records
	in.Records = append(slices.Clone(base), stepRecords(3e6, 1e9)...)
	if c := caveatsOf(mdOf(t, in)); !strings.Contains(c, "**Client host busy:**") || strings.Contains(c, "saturated") {
		t.Errorf("3 ms gaps before 1 s requests called saturated:\n%s", c)
	}
	// 10 ms before each 100 ms request: the workers idle 6 % of the time,
	// the client's own sign.
	in.Records = append(slices.Clone(base), stepRecords(10e6, 100e6)...)
	want := "**Client host saturated:** the client host was saturated (client CPU mean at or above 90 % at C = 4 (highest 97 %); dispatch-gap p99 above 1 ms at C = 4 (highest 10.0 ms)): latencies include client-side queueing; run the client on its own host."
	if c := caveatsOf(mdOf(t, in)); !strings.Contains(c, want) || strings.Contains(c, "busy") {
		t.Errorf("missing %q (or busy too):\n%s", want, c)
	}
	in = fixture()
	in.Verify = fixtureVerify()
	in.Verify.Checks[6].Status = verify.Warn
	in.Verify.Checks[6].Findings = []verify.Finding{{Status: verify.Warn, Kind: verify.KindClientSaturated, Path: "telemetry/host.jsonl",
		Reason: "the client host was saturated: load average above its 2 CPUs at the start of C = 8, 16 (highest 6.74): " + verify.ClientSaturatedAdvice}}
	c := caveatsOf(mdOf(t, in))
	if !strings.Contains(c, "the client host was saturated (benchseal verify: load average above its 2 CPUs at the start of C = 8, 16 (highest 6.74))") || strings.Count(c, "was saturated") != 1 || strings.Contains(c, "Protocol:") {
		t.Errorf("verify's saturation not said once:\n%s", c)
	}
}

// Caveats are facts: the knobs not observed are one line without advice,
// and the advice is given once below the box, one line per engine with
// the targets it serves, however many knobs were not observed.
func TestAdviceOncePerEngine(t *testing.T) {
	in := fixture()
	in.Verify = fixtureVerify()
	models := func(owned string) []schemas.Probe {
		return []schemas.Probe{{Path: "/v1/models", Status: 200, Body: `{"object":"list","data":[{"id":"m","owned_by":"` + owned + `"}]}`}}
	}
	in.Servers = []schemas.ServerCapture{{Target: "sglang-omni", When: "before", Probes: models("sglang-omni")}, {Target: "vllm-omni", When: "before", Probes: models("vllm")}}
	full := "expose it: " + strings.Join(engine.HowToExpose(), "; ")
	fair := &in.Verify.Checks[7]
	fair.Findings = nil
	for i, knob := range []string{"max running requests", "GPU memory fraction", "dtype", "prefix caching"} {
		advice := full
		if i > 0 {
			advice = "to expose it, see max running requests above"
		}
		fair.Findings = append(fair.Findings, verify.Finding{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Advice: advice,
			Reason: knob + ": not observed on any target (sglang-omni, vllm-omni); " + advice})
	}
	md := mdOf(t, in)
	c := caveatsOf(md)
	if strings.Contains(c, "expose it") || strings.Contains(c, "VLLM") {
		t.Errorf("advice in the caveats box:\n%s", c)
	}
	// What was not observed is one line, the conclusion's, not one per
	// knob in the box (issue 40).
	if con := section(md, "Conclusion"); strings.Contains(c, "dtype") || !strings.Contains(con, "**Fairness not observable:** max running requests, GPU memory fraction, dtype, prefix caching (on no target); a lead may come from what was not observed.") || strings.Contains(con, "Not shown fair") {
		t.Errorf("the facts not observed are not one line of the conclusion:\n%s\n%s", con, c)
	}
	for _, want := range []string{
		`- **vllm** (vllm-omni): start vLLM with VLLM\_SERVER\_DEV\_MODE=1`,
		"- **sglang-omni**: SGLang-Omni has no self-description, so record its launch command or its config.",
	} {
		if n := strings.Count(md, want); n != 1 {
			t.Errorf("%q said %d times, want once:\n%s", want, n, md)
		}
	}
	if n := strings.Count(md, `VLLM\_SERVER\_DEV\_MODE`); n != 1 {
		t.Errorf("vLLM's advice said %d times, want once", n)
	}
}

// A step verify finds short of steady state, or with fewer than half of
// its requests successful, is said once: by the report's own caveat from
// the same figures, not again as a protocol finding; verify's words stand
// where claims.json does not carry the figures.
func TestStepFindingsSaidOnce(t *testing.T) {
	in := fixture()
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for ri := range l.Repeats {
				m := &l.Repeats[ri]
				mean := 0.95 * float64(l.Concurrency)
				if l.Concurrency == 4 {
					mean = 2.0
				}
				m.MeanInFlight, m.FullConcurrencyShare = ptr(mean), ptr(0.95)
			}
		}
	}
	in.Verify = fixtureVerify()
	p := &in.Verify.Checks[6]
	p.Status = verify.Warn
	p.Findings = []verify.Finding{
		{Status: verify.Warn, Kind: verify.KindNotSteady, Path: "records/a/c4-r1.jsonl", Reason: "not at steady state at concurrency 4: mean 2.0 of 4 in flight"},
		{Status: verify.Warn, Kind: verify.KindSurvivors, Path: "records/a/c4-r1.jsonl", Reason: "only 3 of 8 measured requests succeeded, fewer than half"},
	}
	c := caveatsOf(mdOf(t, in))
	if strings.Count(c, "**Not at steady state:**") != 1 || strings.Contains(c, "Protocol:") {
		t.Errorf("not said once, by the report's caveats:\n%s", c)
	}
	// Without the figures in claims.json, verify's finding is the only
	// one to say it.
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			for ri := range in.Claims.Targets[ti].Levels[li].Repeats {
				in.Claims.Targets[ti].Levels[li].Repeats[ri].MeanInFlight = nil
			}
		}
	}
	c = caveatsOf(mdOf(t, in))
	if !strings.Contains(c, "**Protocol:** records/a/c4-r1.jsonl: not at steady state") || !strings.Contains(c, "**Steady state not checked:**") {
		t.Errorf("verify's steady-state finding not shown where claims carry no figures:\n%s", c)
	}
}

// Two adjacent levels not at steady state each keep their own figure in
// the headline (issue 36: "at C = 4, 16: not at steady state (mean 3.7 of
// 4 in flight)" put C = 16 under C = 4's figure).
func TestConclusionNotSteadyEachLevel(t *testing.T) {
	in := fixture()
	unsteady(&in, "vllm-omni", 8)
	unsteady(&in, "vllm-omni", 16)
	md := string(pageMarkdown(t, in)) // the headline is report.html's
	i := strings.Index(md, "**Throughput, ")
	if i < 0 {
		t.Fatal("no throughput headline")
	}
	head := md[i : i+strings.Index(md[i:], "\n")]
	if !strings.Contains(head, "at C = 8: not at steady state (mean 4.8 of 8 in flight)") ||
		!strings.Contains(head, "at C = 16: not at steady state (mean 9.6 of 16 in flight)") || strings.Contains(head, "8, 16") {
		t.Errorf("headline: %s", head)
	}
}

// Every chart carries what it is of, so a chart pasted alone keeps it
// (issue 36): the bundle's SHA-256 (16 hex digits and the file name in
// words, the whole digest in its title), "not sealed" for a run
// directory, and "simulated" where the simulator answered for the
// targets, all or some.
func TestChartStamp(t *testing.T) {
	stamps := func(in Input) map[Chart]string {
		out := map[Chart]string{}
		_, _, svgs := render(t, in)
		for ch, b := range svgs {
			s := string(b)
			i := strings.Index(s, `<text class="stamp"`)
			if i < 0 {
				t.Fatalf("%s: no stamp", ch.File())
			}
			out[ch] = s[i : i+strings.Index(s[i:], "</text>")]
		}
		return out
	}
	in := fixtureStages()
	sum := in.BundleSHA256
	for ch, s := range stamps(in) {
		if !strings.Contains(s, ">bundle sha256:"+sum[:16]+"… (evidence.tar.zst)<title>sha256:"+sum+"</title>") || strings.Contains(s, "simulated") {
			t.Errorf("%s: %s", ch.File(), s)
		}
	}
	if len(stamps(in)) < 4 {
		t.Errorf("only %d charts", len(stamps(in)))
	}
	in.Servers[0].Probes[0].Body = `{"object":"list","data":[{"id":"Qwen/Qwen3-ASR-1.7B"}],"benchseal_sim":"vllm-omni"}`
	for ch, s := range stamps(in) {
		if !strings.Contains(s, ">simulated: vllm-omni · bundle sha256:"+sum[:16]) {
			t.Errorf("one simulated target, %s: %s", ch.File(), s)
		}
	}
	for i := range in.Servers {
		in.Servers[i].Probes[0].Body = `{"object":"list","data":[{"id":"m"}],"benchseal_sim":"vllm"}`
	}
	in.BundleSHA256 = ""
	for ch, s := range stamps(in) {
		if !strings.Contains(s, ">simulated servers · run directory, not sealed") || strings.Contains(s, "sha256") {
			t.Errorf("simulated run directory, %s: %s", ch.File(), s)
		}
	}
	in.Lang = "zh"
	for ch, s := range stamps(in) {
		if !strings.Contains(s, ">模拟服务器 · 运行目录，未封存") {
			t.Errorf("zh, %s: %s", ch.File(), s)
		}
	}
}

// TestStalledClientNotCompared: a side whose client stalled in a repeat
// (a worker's next request sent 1 s after its previous one ended, at
// every level) is not compared at all, in the report's conclusion as in
// compare (issue 38: "31 % ahead" of itself from a saturated client).
func TestStalledClientNotCompared(t *testing.T) {
	in := fixture()
	in.Records = records(in)
	for i := range in.Records {
		r := &in.Records[i]
		if r.Target == "vllm-omni" && r.Repeat == 2 && r.Worker == 0 && r.Seq > 0 {
			r.StartNs += 1e9 // worker 0 stalls before its second request
			r.EndNs += 1e9
		}
	}
	con := section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "not comparable: vllm-omni: its client stalled in repeat 2") || strings.Contains(con, "ahead by") {
		t.Errorf("a stalled client's side was compared:\n%s", con)
	}
}
