package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/verify"
)

// SUMMARY.md is at most 250 words on every test input (every variant of
// the fixture, the sim run, the open loop past a knee), and carries the
// verdict table, the bundle's SHA-256 and signer, the one verify
// command, and the simulated banner where it applies.
func TestSummary(t *testing.T) {
	for i, in := range append(variants(), capacityFixture(), seedShaped()) {
		if in.Lang != "" && in.Lang != "en" {
			continue
		}
		var buf bytes.Buffer
		if err := Summary(&buf, in); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		if n := len(strings.Fields(s)); n > SummaryMaxWords {
			t.Errorf("variant %d: SUMMARY.md has %d words, more than %d:\n%s", i, n, SummaryMaxWords, s)
		}
		if !strings.Contains(s, "benchseal verify ") {
			t.Errorf("variant %d: no verify command:\n%s", i, s)
		}
	}
	in := fixture()
	in.Verify = fixtureVerify()
	in.Servers[0].Probes[0].Body = `{"object":"list","data":[],"benchseal_sim":"vllm"}`
	var buf bytes.Buffer
	if err := Summary(&buf, in); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{
		"# Speech-to-text benchmark: ",
		"| concurrency | sglang-omni / vllm-omni |",
		"**Evidence:** `" + in.BundleName + "`, SHA-256 `" + in.BundleSHA256 + "`",
		"; signer `" + in.KeyFingerprint + "`",
		"**Simulated servers:** ",
		"**Not shown fair:**",
		"REPORT.md",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("SUMMARY.md lacks %q:\n%s", want, s)
		}
	}
	// Only the caveats that change a verdict: not the signer, the
	// errors, the telemetry.
	for _, not := range []string{"unpinned", "Errors:", "Telemetry", "Single repeat"} {
		if strings.Contains(s, not) {
			t.Errorf("SUMMARY.md says %q:\n%s", not, s)
		}
	}
	// WriteDir writes it beside REPORT.md; report.html carries it to paste.
	dir := filepath.Join(t.TempDir(), "rep")
	if err := WriteDir(dir, in, true, true); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil || string(got) != s {
		t.Errorf("WriteDir's SUMMARY.md differs (%v)", err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), `<details class="paste"><summary>Summary to paste (SUMMARY.md, `) {
		t.Errorf("report.html has no summary to paste")
	}
}

// A clean two-target run, as the demo's verify finds it but with nothing
// failing (every knob, GPU and cache counter of one target not observed,
// an ephemeral key, a saturated client, a cache probe), has at most 6
// caveats, each said once: the knobs not observed are one line of the
// conclusion, not one bullet each.
func TestCleanRunCaveats(t *testing.T) {
	in := fixture()
	in.KeyEphemeral = true
	in.Verify = &verify.Report{Kind: "bundle", Checks: []verify.Check{
		{ID: 2, Name: "signature", Status: verify.Warn, Summary: "valid, unpinned key", Findings: []verify.Finding{{Status: verify.Warn, Kind: verify.KindUnpinned, Path: "benchseal.pub", Reason: "signer unpinned: verified with the key the bundle carries, which proves it intact, not who sealed it"}}},
		{ID: 8, Name: "fairness", Status: verify.Warn, Summary: "not shown fair", Findings: []verify.Finding{
			{Status: verify.Warn, Path: "env/gpu.json", Reason: "GPU not available (NVML not built in (CGO_ENABLED=0)): the run does not show the targets on the same GPU model"},
			{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Reason: "max running requests: not observed on any target (a, b); expose it"},
			{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Reason: "dtype: not observed on any target (a, b); expose it"},
			{Status: verify.Warn, Kind: verify.KindKnobNotObserved, Path: "servers/", Reason: "prefix caching: not observed on sglang-omni, so it cannot be compared (vllm-omni true); expose it"},
			{Status: verify.Warn, Path: "claims.json", Reason: "cache hits not observable for sglang-omni: no counter; cache probe: not probed"},
		}},
	}}
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for r := range l.Repeats {
				l.Repeats[r].Failed, l.Repeats[r].Succeeded = 0, l.Repeats[r].Requests
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	md := mdOf(t, in)
	cav := caveatsOf(md)
	if n := strings.Count(cav, "\n> - "); n > 6 {
		t.Errorf("%d caveats on a clean two-target run, want at most 6:\n%s", n, cav)
	}
	con := section(md, "Conclusion")
	if !strings.Contains(con, "**Fairness not observable:** GPU model (NVML not built in (CGO\\_ENABLED=0)); max running requests, dtype (on no target); prefix caching, cache hits (on sglang-omni)") || strings.Contains(con, "Not shown fair") {
		t.Errorf("the fairness line:\n%s", con)
	}
	// An ephemeral signer is said once, in the evidence's key paragraph.
	if strings.Contains(md[:strings.Index(md, "## Throughput")], "unpinned") || strings.Count(md, "The key was ephemeral") != 1 {
		t.Errorf("an ephemeral signer is not said once, in the evidence:\n%s", md)
	}
	for _, once := range []string{"dtype", "prefix caching"} {
		if n := strings.Count(md[:strings.Index(md, "## Throughput")], once); n != 1 {
			t.Errorf("%q said %d times above the tables, want once", once, n)
		}
	}
}
