package report

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// rulesDigest is, for RulesVersion, the SHA-256 of the golden fixtures'
// REPORT.md (ASR's and tts's) in every language the report has. A change to what Markdown
// writes changes it: raise RulesVersion and put the new digest here, so
// that no two builds with one rules number render one run differently
// (benchseal verify FAILs a REPORT.md that names its own rules and
// differs).
var rulesDigest = map[int]string{
	1: "30d4d1428f30b3c5bba7eafc5d11b6a23b593a463f7747a8250c0f8d75c2e899",
	2: "79e2cd34dfaf2e35ec90ce49d730ea5b4220e95dfe6716a56050fddd38a67d9c", // issue 40: a shorter report
	3: "220bdde83c9bbe7e175c49db0249f78a828271da6177bafb9cec783aa3d429c5", // issue 40: reference detail report.html's alone
}

func TestRulesVersion(t *testing.T) {
	h := sha256.New()
	for _, fix := range []func() Input{fixture, ttsFixture} {
		for _, lang := range []string{"", "zh"} {
			for _, link := range []bool{true, false} {
				in := fix()
				in.Verify, in.LinkCharts, in.Lang = fixtureVerify(), link, lang
				var b bytes.Buffer
				if err := Markdown(&b, in); err != nil {
					t.Fatal(err)
				}
				if v, ok := schemas.ReportRules(b.Bytes()); !ok || v != RulesVersion {
					t.Fatalf("REPORT.md (lang %q) names rules %d (%v), want RulesVersion %d on its last line", lang, v, ok, RulesVersion)
				}
				h.Write(b.Bytes())
			}
		}
	}
	got := fmt.Sprintf("%x", h.Sum(nil))
	if want := rulesDigest[RulesVersion]; got != want {
		t.Errorf("the golden REPORT.md renders to digest %s, but rules %d are recorded as %q: what Markdown writes changed; raise RulesVersion to %d and record rulesDigest[%d] = %q (or, if only this test's table is stale, fix it)",
			got, RulesVersion, want, RulesVersion+1, RulesVersion+1, got)
	}
}
