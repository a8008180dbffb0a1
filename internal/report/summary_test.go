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
	_ = verify.Warn
}
