package report

import (
	"strings"

	"github.com/benchseal/benchseal/verify"
)

// Verify's fairness findings split in two: a fact that differs between
// the targets (a knob set differently, another GPU model, a cache that
// answered) makes the comparison "not shown fair"; a setting, GPU or
// cache counter that was not observed makes it "fairness not
// observable", one line naming what and on which target, said once in
// the conclusion (and SUMMARY.md) and not again in the caveats.

// unseenFact is a fairness finding that says something was not observed:
// what (a knob's name, "GPU model", "cache hits"), on which target ("" none,
// "*" a fact of the run, not of a target), and why where verify says
// (the GPU's: "NVML not built in").
type unseenFact struct{ what, who, cause string }

// notObservedFact reads f as a fairness finding of something not
// observed, by verify's words for it (fairness.go, gpu_index.go).
func (v *view) notObservedFact(f verify.Finding) (unseenFact, bool) {
	r := f.Reason
	switch {
	case f.Kind == verify.KindKnobNotObserved:
		i := strings.Index(r, ": not observed on ")
		if i < 0 {
			return unseenFact{}, false
		}
		rest := r[i+len(": not observed on "):]
		if strings.HasPrefix(rest, "any target") {
			return unseenFact{r[:i], "", ""}, true
		}
		if j := strings.Index(rest, ", so it cannot be compared"); j >= 0 {
			return unseenFact{r[:i], rest[:j], ""}, true
		}
		// A tts run's speech knob (initial codec chunk frames): where
		// to set it is its cause.
		if j := strings.Index(rest, ", so the targets' first audio cannot be compared"); j >= 0 {
			if k := strings.Index(rest, "both engines take "); k >= 0 {
				if e := strings.Index(rest[k:], " per request"); e >= 0 {
					return unseenFact{r[:i], rest[:j], v.tr("request field %s", rest[k+len("both engines take "):k+e])}, true
				}
			}
			return unseenFact{r[:i], rest[:j], ""}, true
		}
	case f.Kind == verify.KindGPUNotObserved:
		for _, pre := range []string{"the GPU model of ", "the GPUs of "} {
			if strings.HasPrefix(r, pre) {
				rest := r[len(pre):]
				for _, end := range []string{" is not observed", " are not observed"} {
					if j := strings.Index(rest, end); j >= 0 {
						return unseenFact{"GPU model", rest[:j], ""}, true
					}
				}
			}
		}
	case strings.HasPrefix(r, "GPU not available ("):
		if j := strings.Index(r, "): the run does not show"); j >= 0 {
			return unseenFact{"GPU model", "*", r[len("GPU not available ("):j]}, true
		}
	case strings.HasPrefix(r, "GPU not available: the run recorded no env/gpu.json"):
		return unseenFact{"GPU model", "*", "no env/gpu.json"}, true
	case strings.HasPrefix(r, "cache hits not observable for "):
		rest := r[len("cache hits not observable for "):]
		if j := strings.Index(rest, ":"); j >= 0 {
			return unseenFact{"cache hits", rest[:j], ""}, true
		}
	}
	return unseenFact{}, false
}

// fairnessFacts is verify's fairness check read in those two kinds:
// differs says some warning or failure is a fact that differs (or that
// this package cannot read as not observed), unseen the facts not
// observed in verify's order. Findings the report says elsewhere (the
// simulator, a saturated client, survivors, steady state) are neither.
func (v *view) fairnessFacts() (differs bool, unseen []unseenFact) {
	r := v.in.Verify
	if r == nil {
		return false, nil
	}
	c := r.Check(verify.CheckFairness)
	if c == nil || c.Status < verify.Warn {
		return false, nil
	}
	for _, f := range c.Findings {
		if f.Status != verify.Warn && f.Status != verify.Fail {
			continue
		}
		if v.saidElsewhere(f) {
			continue
		}
		if u, ok := v.notObservedFact(f); ok && f.Status == verify.Warn {
			unseen = append(unseen, u)
			continue
		}
		differs = true
	}
	if c.Omitted > 0 {
		differs = true // findings not listed: cannot tell they only lack observation
	}
	return differs, unseen
}

// saidElsewhere says the report words finding f from its own figures or
// under the title, so the caveats leave it out.
func (v *view) saidElsewhere(f verify.Finding) bool {
	// A probe whose latencies and counter disagree: probeCaveats says it
	// from the claims (verify reads the same claims.ProbeBearingOf).
	disagree := f.Kind == verify.KindCacheProbe && strings.Contains(f.Reason, "the cache probe's latencies and the server's own counter disagree")
	// Simulator settings that differ: the banner under the title lists
	// them and the fairness line says they make it not shown fair.
	simSettings := f.Kind == verify.KindSimSettings && v.simDiffers()
	// An unpinned ephemeral signer: the evidence's key paragraph says it
	// beside the fingerprint to pin.
	unpinned := f.Kind == verify.KindUnpinned && v.in.KeyEphemeral && v.in.KeyFingerprint != ""
	return disagree || simSettings || unpinned || (f.Kind == verify.KindSimulator && len(v.simulated()) > 0) ||
		f.Kind == verify.KindClientSaturated || f.Kind == verify.KindClientBusy || f.Kind == verify.KindSurvivors || (f.Kind == verify.KindNotSteady && v.steadyKnown())
}

// unseenText words the facts not observed, grouped by target: "GPU model
// (NVML not built in); max running requests, dtype (on no target); GPU
// memory fraction, cache hits (on sglang-omni)". In REPORT.md (not
// summary) a GPU's cause that the Environment section gives is left to it.
func (v *view) unseenText(unseen []unseenFact, summary bool) string {
	var order []string
	by := map[string][]string{}
	for _, u := range unseen {
		if _, ok := by[u.who]; !ok {
			order = append(order, u.who)
		}
		what := u.what
		switch what { // this package's names; a knob's is verify's
		case "GPU model", "cache hits":
			what = v.tr(what)
		}
		if u.cause != "" && (summary || !v.envSaysGPU(u.cause)) {
			what += " (" + u.cause + ")"
		}
		if !strings.Contains(strings.Join(by[u.who], "\x00")+"\x00", what+"\x00") {
			by[u.who] = append(by[u.who], what)
		}
	}
	parts := make([]string, 0, len(order))
	for _, who := range order {
		list := strings.Join(by[who], ", ")
		switch who {
		case "*":
			parts = append(parts, list)
		case "":
			parts = append(parts, v.tr("%s (on no target)", list))
		default:
			parts = append(parts, v.tr("%s (on %s)", list, who))
		}
	}
	return strings.Join(parts, v.tr("; "))
}

// envSaysGPU says the Environment section words cause, as why the client
// machine could not query a GPU.
func (v *view) envSaysGPU(cause string) bool {
	g := v.in.GPU
	return g != nil && v.gpuLine() == "" && g.Reason == cause
}

// simDiffers says the banner under the title lists simulator settings
// that differ between the targets.
func (v *view) simDiffers() bool {
	if len(v.simulated()) == 0 {
		return false
	}
	_, diff := v.simSettingsDiffer()
	return len(diff) > 0
}

// fairnessLine is the conclusion's one line on fairness: "Not shown
// fair" where a fact differs, "Fairness not observable: …" where facts
// were only not observed, nil where verify found neither (or did not
// run: the caveats say so). Where the only facts that differ are the
// simulator settings under the title, the line says so and names what
// was not observed beside it, so the caveats need no line of either.
// In SUMMARY.md (summary) those settings are listed, as its banner
// does not.
func (v *view) fairnessLine(summary bool) []block {
	differs, unseen := v.fairnessFacts()
	switch {
	case differs:
		return []block{para{warn: true, spans: []span{b(v.tr("Not shown fair:")), t(" " + v.tr("benchseal verify found differences or gaps in how the targets were set up (see the caveats below); a lead may come from the setup, not the engine."))}}}
	case v.in.Verify != nil && v.simDiffers():
		sim := v.tr("the simulator settings under the title differ; a lead may come from them, not an engine.")
		if summary {
			names, diff := v.simSettingsDiffer()
			sim = v.tr("their simulator settings differ (%s: %s); a lead may come from them, not an engine.", strings.Join(names, " vs "), strings.Join(diff, "; "))
		}
		spans := []span{b(v.tr("Not shown fair:")), t(" " + sim)}
		if len(unseen) > 0 {
			spans = append(spans, t(" "), b(v.tr("Fairness not observable:")), t(" "+v.unseenText(unseen, summary)+v.tr(".")))
		}
		return []block{para{warn: true, spans: spans}}
	case len(unseen) > 0:
		return []block{para{warn: true, spans: []span{b(v.tr("Fairness not observable:")), t(" " + v.tr("%s; a lead may come from what was not observed.", v.unseenText(unseen, summary)))}}}
	}
	return nil
}
