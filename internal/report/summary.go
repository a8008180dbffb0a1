package report

import (
	"bufio"
	"io"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
)

// SummaryFile is the short summary WriteDir writes beside REPORT.md.
const SummaryFile = "SUMMARY.md"

// SummaryMaxWords is the most words SUMMARY.md may have (by
// strings.Fields, as wc -w counts): short enough to paste whole.
const SummaryMaxWords = 250

// summaryBlocks is SUMMARY.md: the title; a failed verify, perturbation
// off, an incomplete run and the simulated-servers banner, each in one
// line; the verdict tables (the conclusion's, without its rule); only the
// caveats that change a verdict (fairness not shown or not observable,
// not verified, inflated by caching, a saturated client, cache hits);
// the bundle's SHA-256 and signer fingerprint (or that it was not
// sealed); and the one command that verifies it.
func (v *view) summaryBlocks() []block {
	out := append([]block(nil), v.failedVerify()...)
	out = append(out, heading{1, v.title()})
	r := v.in.Run
	if !r.Protocol.Perturb {
		out = append(out, para{warn: true, spans: []span{b(v.tr("Perturbation was OFF:")), t(" " + v.tr("a server cache could answer repeats from memory."))}})
	}
	if !r.Complete {
		out = append(out, para{warn: true, spans: []span{b(v.tr("This run did not complete:")), t(" " + v.tr("levels or repeats may be missing."))}})
	}
	if sim := v.simulatedTargets(); len(sim) > 0 {
		out = append(out, para{warn: true, spans: []span{b(v.tr("Simulated servers:")), t(" " + v.tr("%s answered as benchseal's simulator: these figures measure the simulator, not an engine.", strings.Join(sim, ", ")))}})
	}
	// The verdict tables; their headlines say the same again.
	for _, bl := range v.verdictPairs() {
		if _, ok := bl.(table); ok {
			out = append(out, bl)
		}
	}
	out = append(out, v.fairnessLine(true)...)
	var items [][]span
	if v.in.Verify == nil {
		items = append(items, []span{b(v.tr("Not verified:")), t(" " + v.tr("benchseal verify did not run for this summary."))})
	}
	for _, tg := range r.Targets {
		if bearing, _ := claims.ProbeBearingOf(r, v.in.Claims, tg.Name); bearing == claims.ProbeInflated {
			items = append(items, []span{b(v.tr("Inflated by caching:")), t(" " + v.tr("%s answered repeats from its cache (perturbation off).", tg.Name))})
		}
	}
	if hits, _, _ := v.cacheTally(); len(hits) > 0 {
		items = append(items, []span{b(v.tr("Cache hits:")), t(" " + strings.Join(hits, "; ") + v.tr("."))})
	}
	// Saturated, not merely busy: a busy host whose own load was small
	// left the load it sent not in doubt (clientCaveats).
	if cc := v.clientCaveats(); len(cc) > 0 && cc[0][0].text == v.tr("Client host saturated:") {
		items = append(items, []span{b(v.tr("Client host saturated:")), t(" " + v.tr("latencies include client-side queueing."))})
	}
	if len(items) > 0 {
		out = append(out, bullets{items: items})
	}
	in := v.in
	name := in.BundleName
	if name == "" {
		name = "evidence.tar.zst"
	}
	cmd := "benchseal verify " + name + " --key KEY.pub"
	if in.BundleSHA256 == "" {
		out = append(out, para{warn: true, spans: []span{b(v.tr("Not sealed:")), t(" " + v.tr("made from a run directory; seal it before publishing."))}})
		cmd = "benchseal verify RUNDIR"
	} else {
		s := []span{b(v.tr("Evidence:")), t(" "), c(name), t(v.tr(", SHA-256 ")), c(in.BundleSHA256)}
		if in.KeyFingerprint != "" {
			s = append(s, t(v.tr("; signer ")), c(in.KeyFingerprint))
			if in.KeyEphemeral {
				s = append(s, t(" "+v.tr("(an ephemeral key: it proves the bundle unchanged, not who sealed it)")))
				cmd = "benchseal verify " + name
			}
		}
		out = append(out, para{spans: append(s, t(v.tr(".")))})
	}
	out = append(out, codeBlock{cmd}, para{spans: []span{t(v.tr("The full report, with every caveat and how each figure was measured: REPORT.md."))}})
	return out
}

// Summary writes SUMMARY.md: at most SummaryMaxWords words of what a
// reader pastes (summaryBlocks).
func Summary(w io.Writer, in Input) error {
	_, err := io.WriteString(w, newView(in).summaryText())
	return err
}

// summaryText is SUMMARY.md as a string (report.html's block to paste).
func (v *view) summaryText() string {
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	for i, bl := range v.summaryBlocks() {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeMarkdown(bw, bl, false)
	}
	bw.Flush()
	return sb.String()
}
