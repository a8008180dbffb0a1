package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"golang.org/x/net/html"
)

// section returns the Markdown from heading h to the next heading of level 2.
func section(md, h string) string {
	i := strings.Index(md, "\n## "+h+"\n")
	if i < 0 {
		return ""
	}
	rest := md[i+1:]
	if j := strings.Index(rest[3:], "\n## "); j >= 0 {
		return rest[:j+3]
	}
	return rest
}

func TestWarningsComeFirst(t *testing.T) {
	in := fixture()
	in.Run.Protocol.Perturb = false
	in.Run.Complete = false
	in.Run.Incomplete = "interrupted"
	md, page, _ := render(t, in)
	m := string(md)
	off := strings.Index(m, "> **Perturbation was OFF.**")
	inc := strings.Index(m, "> **This run did not complete** (interrupted)")
	first := strings.Index(m, "\n## ")
	if off < 0 || inc < 0 || off > first || inc > first {
		t.Errorf("perturbation-off (%d) and incomplete (%d) warnings must come before the first section (%d)", off, inc, first)
	}
	if !strings.Contains(m, "**Perturbation was OFF: repeated clips sent identical bytes.**") {
		t.Error("the summary does not say perturbation was off")
	}
	if strings.Contains(m, "changed by one LSB, so no server") {
		t.Error("the summary claims perturbation on a run without it")
	}
	if n := bytes.Count(page, []byte(`<p class="warn"><strong>`)); n != 2 {
		t.Errorf("HTML has %d warning paragraphs, want 2", n)
	}
}

func TestNoReferences(t *testing.T) {
	in := fixture()
	for i := range in.Run.Corpus {
		in.Run.Corpus[i].Text = ""
	}
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			l.Median.Quality, l.Min.Quality, l.Max.Quality = nil, nil, nil
		}
	}
	in.Claims.Scoring.Unit = "char"
	md, _, _ := render(t, in)
	acc := section(string(md), "Accuracy (CER)")
	if !strings.Contains(acc, "No references") || strings.Contains(acc, "|") {
		t.Errorf("accuracy section without references:\n%s", acc)
	}
	if !strings.Contains(string(md), "no reference transcripts") {
		t.Error("the summary does not say the corpus has no references")
	}
}

func TestOptionalSectionsLeftOut(t *testing.T) {
	in := fixture()
	in.GPU, in.Host, in.Servers = nil, nil, nil
	in.BundleSHA256, in.KeyFingerprint = "", ""
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for _, m := range append([]*schemas.Metrics{&l.Median, &l.Min, &l.Max}, ptrs(l.Repeats)...) {
				m.GPUUtilMean, m.GPUUtilMax, m.GPUMemPeakBytes, m.GPUPowerPeakW, m.HostCPUMean, m.CacheHits = nil, nil, nil, nil, nil, nil
				m.Failed, m.Errors = 0, nil
			}
		}
	}
	md, _, _ := render(t, in)
	m := string(md)
	for _, h := range []string{"Errors", "Server cache hits", "Telemetry"} {
		if section(m, h) != "" {
			t.Errorf("section %q shown without data", h)
		}
	}
	if strings.Contains(m, "NVIDIA") || strings.Contains(m, "GET /") {
		t.Error("GPU or probes shown though absent")
	}
	if !strings.Contains(m, "> **This report was made from a run directory, not a sealed bundle.**") {
		t.Error("a report without a bundle does not tell to seal first")
	}
	if strings.Contains(m, "fingerprint") {
		t.Error("a key fingerprint is mentioned without one")
	}
}

func ptrs(ms []schemas.Metrics) []*schemas.Metrics {
	out := make([]*schemas.Metrics, len(ms))
	for i := range ms {
		out[i] = &ms[i]
	}
	return out
}

func TestEphemeralKey(t *testing.T) {
	in := fixture()
	in.KeyEphemeral = true
	md, _, _ := render(t, in)
	how := section(string(md), "Evidence")
	// Stock cosign's recipe is docs/verify.md's, named, not repeated.
	for _, want := range []string{"**The key was ephemeral:**", "\nbenchseal verify evidence.tar.zst\n", "stock cosign: docs/verify.md"} {
		if !strings.Contains(how, want) {
			t.Errorf("ephemeral-key instructions lack %q:\n%s", want, how)
		}
	}
}

// TestDeterministic renders many times: maps (request fields, error
// classes) must not leak their random iteration order.
func TestDeterministic(t *testing.T) {
	in := fixture()
	in.LinkCharts = true
	for k := range 12 {
		in.Run.Targets[0].RequestFields[string(rune('a'+k))] = "v"
	}
	l := &in.Claims.Targets[1].Levels[4]
	for k := range 12 {
		l.Repeats[0].Errors["class"+string(rune('a'+k))] = k + 1
	}
	l.Repeats[0].Failed += 78
	md0, page0, svg0 := render(t, in)
	for range 20 {
		md, page, svg := render(t, in)
		if !bytes.Equal(md, md0) || !bytes.Equal(page, page0) {
			t.Fatal("two renders of one input differ")
		}
		for ch := range svg {
			if !bytes.Equal(svg[ch], svg0[ch]) {
				t.Fatalf("two renders of %s differ", ch.File())
			}
		}
	}
	if !bytes.Contains(md0, []byte("classa 1, classb 2, classc 3")) {
		t.Error("error classes are not in sorted order")
	}
}

// FuzzNames puts arbitrary text in every name a report shows: the SVGs must
// stay well-formed XML, the HTML must gain no element, and Markdown tables
// must keep their shape.
func FuzzNames(f *testing.F) {
	seeds := []string{evil, "a|b", "`x`", "]]>", "<!--", "&amp;", "\x00\xff", "a\nb", "*_~#", "\u202e", ""}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, model string) {
		in := fixture()
		in.Claims.Targets[0].Target = name
		in.Run.Targets[0].Name = name
		in.Run.Targets[0].Model = model
		in.Servers[0].Target = name
		in.Servers[0].Probes[0].Body = model
		_, page, svgs := render(t, in)
		for ch, doc := range svgs {
			wellFormed(t, ch.File(), doc)
		}
		doc, err := html.Parse(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img" || n.Data == "iframe") {
				t.Fatalf("a name became a <%s> element", n.Data)
			}
			if n.Type == html.ElementNode && n.Data == "table" {
				count++
			}
		}
		if count != 7 { // the fixture's cache hits are one sentence (0 at every level)
			t.Fatalf("HTML has %d tables, want 7", count)
		}
	})
}

// TestVerifyFailureFirst: a failed verification is the report's first
// line, its findings are caveats, and its checklist is in "Evidence".
func TestVerifyFailureFirst(t *testing.T) {
	in := fixture()
	in.Verify = &verify.Report{Kind: "bundle", Pinned: true, Failed: 1, Passed: 1, Warned: 1, Checks: []verify.Check{
		{ID: 1, Name: "archive", Status: verify.Pass, Summary: "safe"},
		{ID: 2, Name: "signature", Status: verify.Fail, Summary: "wrong key", Findings: []verify.Finding{{Status: verify.Fail, Path: "attestation.dsse.json", Reason: "signature does not verify"}}},
		{ID: 8, Name: "fairness", Status: verify.Warn, Summary: "not fair", Findings: []verify.Finding{{Status: verify.Warn, Path: "servers/vllm-omni/probes-before.json", Reason: "max running requests: sglang-omni 16, vllm-omni 8"}}},
	}}
	md, _, _ := render(t, in)
	m := string(md)
	if !strings.HasPrefix(m, "> **This bundle FAILED benchseal verify** (1 of 3 checks failed: signature)") {
		t.Errorf("a failed verification is not the first line:\n%s", m[:min(len(m), 300)])
	}
	cav := m[strings.Index(m, "> **Caveats**"):]
	cav = cav[:strings.Index(cav, "\n\n")]
	for _, want := range []string{"signature does not verify", "max running requests: sglang-omni 16, vllm-omni 8"} {
		if !strings.Contains(cav, want) {
			t.Errorf("caveats lack %q:\n%s", want, cav)
		}
	}
	if !strings.Contains(section(m, "Evidence"), "PASS 1 archive\nFAIL 2. signature: wrong key\nWARN 8 fairness: said above\n") {
		t.Error("the checklist is not in the evidence section")
	}
	in.Verify.Failed, in.Verify.Checks[1].Status, in.Verify.Checks[1].Findings = 0, verify.Pass, nil
	md, _, _ = render(t, in)
	if strings.Contains(string(md), "FAILED") {
		t.Error("a passing verification is shown as failed")
	}
}

// TestFailuresShown: a level where every request failed shows "—", never
// 0, in every table and is not comparable; a level with failures carries
// its failed share beside each number; the caveats name the error rate,
// levels with fewer requests than C, single repeats and cache counters
// that do not exist.
func TestFailuresShown(t *testing.T) {
	in := fixture()
	in.Run.Corpus[0].Text = ""
	for ti := range in.Claims.Targets {
		l := &in.Claims.Targets[ti].Levels[4] // C=16
		if ti == 1 {
			for r := range l.Repeats {
				m := &l.Repeats[r]
				m.Failed, m.Succeeded, m.ReqPerS, m.RTFx, m.LatencyP50S, m.Quality = m.Requests, 0, 0, nil, nil, nil
				m.Errors = map[string]int{"http": m.Requests}
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
		l0 := &in.Claims.Targets[ti].Levels[0] // C=1: one repeat, no cache counter
		l0.Repeats = l0.Repeats[:1]
		l0.Repeats[0].CacheHits = nil
		l0.Median, l0.Min, l0.Max = summarize(l0.Repeats)
		l1 := &in.Claims.Targets[ti].Levels[3] // C=8: fewer requests than C
		for r := range l1.Repeats {
			l1.Repeats[r].Requests = 5
		}
	}
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			for r := range in.Claims.Targets[ti].Levels[li].Repeats {
				if ti == 1 {
					in.Claims.Targets[ti].Levels[li].Repeats[r].CacheHits = nil
				}
			}
		}
	}
	md, _, _ := render(t, in)
	m := string(md)
	for _, want := range []string{
		"| 16 | 8.00 \\[7.76–8.24\\] | — |",             // throughput
		"| 16 | vllm-omni (100 % failed) | — | — | — |", // latency
		"| 16 | — | — | not comparable: vllm-omni had no successful request |",
		"vllm-omni failed more than 1 % of its requests: 100 % at C = 16 (http 1536)",
		"**Fewer requests than C:** at C = 8 ",
		"**Single repeat:** at C = 1 there is one repeat",
		"**Cache hits not observable:** vllm-omni exposed no cache-hit counter",
		"| 1 | 1.22× | — | single repeat: one observation, no interval |",
		"Only requests for the 19 of 20 clips with a reference transcript are scored.",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(section(m, "Throughput"), "| 0 |") {
		t.Error("a level without a successful request shows 0")
	}
	// The RTFx table is report.html's; REPORT.md points to it.
	if rtfx := "| 16 | 52.0× \\[50.4×–53.6×\\] | — |"; !strings.Contains(string(pageMarkdown(t, in)), rtfx) || strings.Contains(m, rtfx) {
		t.Errorf("report.html, and it alone, has the RTFx row %q", rtfx)
	}
	if !strings.Contains(m, "Real-time factor by level: report.html.") {
		t.Error("REPORT.md does not point to the RTFx table")
	}
}

// TestTrustedTime: check 11's verdict becomes the Evidence section's
// time-stamps line: held (with what it does not show), unpinned (said),
// broken (never its times), and nothing for a run not time-stamped.
func TestTrustedTime(t *testing.T) {
	for _, tc := range []struct {
		status    verify.Status
		want, not []string
	}{
		{verify.Pass, []string{"plan stamped T1", "not that no other run was pre-registered"}, []string{"not pinned"}},
		// Warned, check 11's summary is the checklist's, not said twice.
		{verify.Warn, []string{"was not pinned"}, []string{"plan stamped T1"}},
		{verify.Fail, []string{"its time-stamps do not hold (check 11)"}, []string{"plan stamped T1"}},
		{verify.Skip, nil, []string{"Time-stamps:"}},
	} {
		in := fixture()
		in.Verify = &verify.Report{Kind: "bundle", Pinned: true, Checks: []verify.Check{
			{ID: 11, Name: "timestamp", Status: tc.status, Summary: "plan stamped T1; seal stamped T2"}}}
		md, _, _ := render(t, in)
		// The checklist echo below repeats every summary: read what is above it.
		ev, _, _ := strings.Cut(section(string(md), "Evidence"), "benchseal verify said")
		for _, w := range tc.want {
			if !strings.Contains(ev, w) {
				t.Errorf("%s: evidence lacks %q", tc.status, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(ev, n) {
				t.Errorf("%s: evidence says %q", tc.status, n)
			}
		}
	}
}
