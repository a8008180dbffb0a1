package verify

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkFairness is check 8. Data a sub-check needs but the run did not
// capture makes it WARN ("not available") when there are targets to
// compare: an unchecked comparison is not a fair one.
func checkFairness(rep *Report, ev *evidence) {
	c := rep.Check(CheckFairness)
	run := ev.run
	var done []string
	loadHeld := checkKnobsAgainstLoad(c, ev)
	checkSimulated(c, ev)
	if len(run.Targets) > 1 {
		if checkGPUs(c, ev) {
			done = append(done, "same GPU model and driver")
		}
		if held := checkKnobs(c, ev); held != "" && loadHeld {
			done = append(done, held)
		}
		if keys := engine.RequestKnobsFor(task.NameOf(run)); len(keys) > 0 {
			if held := checkRequestKnobs(c, ev, keys); held != "" {
				done = append(done, held)
			}
		}
	} else {
		checkGPUIndices(c, ev)
	}
	if held := checkCacheHits(c, ev); held != "" {
		done = append(done, held)
	}
	if held := checkCacheProbes(c, ev); held != "" {
		done = append(done, held)
	}
	// Each part keeps its state: what held, what did not (the findings),
	// what there was nothing to compare with.
	var parts []string
	switch {
	case c.Status != Pass && len(run.Targets) > 1:
		parts = append(parts, fmt.Sprintf("%d targets: the comparison is not shown fair (see below)", len(run.Targets)))
	case c.Status != Pass:
		parts = append(parts, "not shown (see below)")
	}
	if len(done) > 0 {
		parts = append(parts, "held: "+strings.Join(done, "; "))
	}
	if len(run.Targets) == 1 {
		parts = append(parts, "not compared: one target (no GPUs or knobs to compare)")
	}
	c.Summary = strings.Join(parts, "; ")
}

// checkGPUs compares the GPUs the targets ran on (env/gpu.json and each
// target's gpus). It reports whether the comparison could be made and held.
func checkGPUs(c *Check, ev *evidence) bool {
	const name = "env/gpu.json"
	if !ev.f.has(name) {
		c.warnf(name, "GPU not available: the run recorded no env/gpu.json, so it does not show the targets on the same GPU model")
		return false
	}
	b, err := ev.f.read(name)
	var g schemas.GPUInfo
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		c.failf(name, err, "cannot be decoded: %v", err)
		return false
	}
	if !g.Available || len(g.GPUs) == 0 {
		c.warnf(name, "GPU not available (%s): the run does not show the targets on the same GPU model", g.Reason)
		return false
	}
	byIndex := map[int]string{}
	for _, d := range g.GPUs {
		byIndex[d.Index] = d.Name
	}
	models := map[string][]string{} // target -> GPU models
	ok := true
	for _, t := range ev.run.Targets {
		if len(t.GPUs) == 0 {
			continue
		}
		for _, i := range t.GPUs {
			m, found := byIndex[i]
			if !found {
				c.failf("run.json", nil, "target %s runs on GPU %d, which env/gpu.json does not list", t.Name, i)
				ok = false
				continue
			}
			models[t.Name] = append(models[t.Name], m)
		}
	}
	if len(models) < len(ev.run.Targets) {
		all := map[string]bool{}
		for _, d := range g.GPUs {
			all[d.Name] = true
		}
		if len(all) > 1 {
			c.warnKindf(KindGPUsUnassigned, "run.json", "the machine has GPUs of %d models and not every target says which it used", len(all))
			return false
		}
		// env/gpu.json describes the host benchseal ran on; a target that
		// names no GPU of it may be served from anywhere.
		gpusNotNamed(c, ev)
		return false
	}
	var first string
	for _, t := range ev.run.Targets {
		ms := slices.Clone(models[t.Name])
		slices.Sort(ms)
		s := strings.Join(ms, ", ")
		if first == "" {
			first = s
			continue
		}
		if s != first {
			c.failf("run.json", nil, "targets ran on different GPUs: %s on %s, %s on %s", ev.run.Targets[0].Name, first, t.Name, s)
			ok = false
		}
	}
	// A GPU named and never sampled is a name, not an observation.
	return gpusSampled(c, ev) && ok
}

// knobSide is one target's knobs at one moment.
type knobSide struct {
	knobs map[string]fingerprint.Knob
	file  string // the capture read, "" when none
}

// targetKnobs reads a target's knobs from servers/<t>/probes-<when>.json
// and its launch command (run.json): served where a probe says it,
// declared where the command does, absent otherwise.
func targetKnobs(ev *evidence, t schemas.Target, when string) knobSide {
	name := path.Join("servers", t.Name, "probes-"+when+".json")
	side := knobSide{knobs: map[string]fingerprint.Knob{}}
	var probes []schemas.Probe
	if ev.f.has(name) {
		b, err := ev.f.read(name)
		var cap schemas.ServerCapture
		if err == nil && json.Unmarshal(b, &cap) == nil && cap.Schema == schemas.ProbeSchema {
			probes, side.file = cap.Probes, name
		}
	}
	for _, k := range fingerprint.Knobs(probes, t.LaunchCommand) {
		side.knobs[k.Name] = k
	}
	for _, k := range fingerprint.SimKnobs(probes) {
		side.knobs[k.Name] = k
	}
	return side
}

// howToExpose names what would let a verifier see a knob, for every
// engine of internal/engine's table that hides some.
var howToExpose = "expose it: " + strings.Join(engine.HowToExpose(), "; ")

// checkKnobs compares every target's server knobs with the first one's,
// like with like: the same knob (whatever each engine calls it), each
// value named with where it came from (served by the server, declared by
// the launch command). A knob no target exposes, or one target does not,
// is not observed: a WARN saying how to expose it, never a silent pass.
// The knobs are read from probes-before.json and probes-after.json both: a
// served knob that changed between them is a WARN too. benchseal's
// simulator publishes its settings (engine.SimulatorSettingsField): its
// max running requests is the knob of that name, and its other compared
// settings (fingerprint.SimKnobs) are knobs too when every target
// published them; one that differs is "not shown fair: <knob> <a> vs <b>
// (simulator settings)". It returns what held, "" when anything did not.
func checkKnobs(c *Check, ev *evidence) string {
	targets := ev.run.Targets
	before := make([]knobSide, len(targets))
	for i, t := range targets {
		before[i] = targetKnobs(ev, t, "before")
		after := targetKnobs(ev, t, "after")
		if before[i].file == "" && after.file == "" {
			c.warnf(path.Join("servers", t.Name), "server knobs of %s: no probes-before.json or probes-after.json was captured; only its launch command could say them", t.Name)
		}
		for _, name := range append(slices.Clone(fingerprint.KnobNames), fingerprint.SimKnobNames()...) {
			b, a := before[i].knobs[name], after.knobs[name]
			if b.Source == fingerprint.KnobServed && a.Source == fingerprint.KnobServed && b.Value != a.Value {
				c.warnf(after.file, "%s of %s changed during the run: %s before, %s after (%s)", name, t.Name, b.Value, a.Value, a.From)
			}
			if before[i].file == "" && a.Source != fingerprint.KnobAbsent {
				before[i].knobs[name] = a // no capture before: the one after
			}
		}
	}
	var held []string
	ok := true
	advisedFor := "" // the knob whose finding carries the advice
	names := slices.Clone(fingerprint.KnobNames)
	for _, name := range fingerprint.SimKnobNames() {
		// A simulator setting is compared where every target published
		// it: against an engine it is no knob (checkSimulated says the
		// target is the simulator).
		if !slices.ContainsFunc(before, func(side knobSide) bool { return side.knobs[name].Source != fingerprint.KnobServed }) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		var missing, sources, values []string
		first := before[0].knobs[name]
		differs, simulated := false, true
		for i, t := range targets {
			k := before[i].knobs[name]
			if k.Source == fingerprint.KnobAbsent || k.Source == "" {
				missing = append(missing, t.Name)
				continue
			}
			sources = append(sources, fmt.Sprintf("%s %s (%s: %s)", t.Name, k.Value, k.Source, k.From))
			values = append(values, k.Value)
			simulated = simulated && fingerprint.FromSimSettings(k)
			if first.Source != fingerprint.KnobAbsent && k.Value != first.Value {
				differs = true
			}
		}
		// A comparison across targets is no one target's finding: it is
		// filed under servers/, not under the first target's folder.
		file := "servers/"
		if len(targets) == 1 {
			file = path.Join("servers", targets[0].Name)
		}
		// The advice is the same for every knob: given once, with the
		// first knob not observed, and pointed to after it.
		advice := howToExpose
		if advisedFor != "" {
			advice = "to expose it, see " + advisedFor + " above"
		}
		switch {
		case len(missing) == len(targets):
			c.add(Finding{Status: Warn, Kind: KindKnobNotObserved, Path: file, Advice: advice,
				Reason: fmt.Sprintf("%s: not observed on any target (%s); %s", name, strings.Join(missing, ", "), advice)})
			ok = false
		case len(missing) > 0:
			c.add(Finding{Status: Warn, Kind: KindKnobNotObserved, Path: file, Advice: advice,
				Reason: fmt.Sprintf("%s: not observed on %s, so it cannot be compared (%s); %s", name, strings.Join(missing, ", "), strings.Join(sources, "; "), advice)})
			ok = false
		}
		if len(missing) > 0 && advisedFor == "" {
			advisedFor = name
		}
		switch {
		case len(missing) > 0: // warned above
		case differs && simulated:
			c.warnKindf(KindSimSettings, file, "not shown fair: %s %s (simulator settings): %s", name, strings.Join(values, " vs "), strings.Join(sources, "; "))
			ok = false
		case differs:
			c.warnf(file, "%s differs: %s", name, strings.Join(sources, "; "))
			ok = false
		default:
			held = append(held, fmt.Sprintf("%s %s (%s)", name, first.Value, strings.Join(sourcesOnly(before, name, targets), ", ")))
		}
	}
	if !ok {
		return ""
	}
	return "same server knobs: " + strings.Join(held, "; ")
}

// sourcesOnly lists "target: source" of one knob.
func sourcesOnly(sides []knobSide, name string, targets []schemas.Target) []string {
	var out []string
	for i, t := range targets {
		out = append(out, t.Name+" "+sides[i].knobs[name].Source)
	}
	return out
}

func pick(first bool, a, b string) string {
	if first {
		return a
	}
	return b
}

// checkCacheHits reads the cache hits counted over each step (claims'
// cache_hits, the growth of the counter internal/claims.CacheDelta picks
// from the step's steps.jsonl line; the scrapes are taken before the
// step's warm-ups and after its last request, so warm-ups count too).
// What a hit means is the counter's row in internal/engine's table
// (CacheCounter.Counts, with its source), the one place verify, claims
// and the report read it from; the counter is claims' cache_hits_counter
// (for claims sealed before it, the one CacheDelta picks from the step's
// line):
//
//   - a counter of whole inputs (vllm:mm_cache_hits_total: multi-modal
//     data items, stats.py@28ed1fb8) found in the cache: every request
//     of a perturbed run sends a variant no request sent before, so a
//     hit there means the cache-proof premise is false: FAIL
//     (KindCacheHit). In a run without perturbation it is the expected
//     consequence the run announced: a loud WARN.
//   - a counter of tokens (vllm:prefix_cache_hits_total and its pre-0.9
//     name, sglang:cached_tokens_total): distinct audio shares the prompt
//     template's prefix, so it grows honestly: a WARN naming the unit
//     (KindCacheTokens), never a FAIL and never "answered from its
//     cache"; the report words it the same way.
//
// A target whose cache_hits is null everywhere has no cache counter the
// run could read: its cache hits are not observable, a WARN worded from
// its engine (by /v1/models owned_by), never "no cache hits". It returns
// what held, "" when anything did not.
func checkCacheHits(c *Check, ev *evidence) string {
	if ev.claims == nil {
		return ""
	}
	perturbed := ev.run.Protocol.Perturb
	ok := true
	var unobserved []string
	for _, t := range ev.claims.Targets {
		seen := false
		for _, l := range t.Levels {
			for r, m := range l.Repeats {
				if m.CacheHits == nil {
					continue
				}
				seen = true
				if *m.CacheHits <= 0 {
					continue
				}
				ok = false
				step := fmt.Sprintf("%s c=%d repeat %d", t.Target, l.Concurrency, r+1)
				over := "over the step, warm-ups included"
				if m.CacheHitsScope == schemas.CacheHitsMeasured {
					over = "over the measured requests"
				}
				counter := m.CacheHitsCounter
				if counter == "" { // claims sealed before cache_hits_counter
					counter = cacheCounterOf(ev, t.Target, l.Concurrency, r+1)
				}
				row, known := engine.CacheCounterOf(counter)
				switch {
				case known && row.AnswersFromCache() && perturbed:
					c.add(Finding{Status: Fail, Kind: KindCacheHit, Path: "claims.json", Reason: fmt.Sprintf(
						"%s: the server answered %g perturbed requests from its cache (%s grew by %g %s): every request sent audio no request had sent before, so the cache-proof premise is false and these figures do not measure uncached serving",
						step, *m.CacheHits, counter, *m.CacheHits, over)})
				case known && row.AnswersFromCache():
					c.warnKindf(KindCacheHit, "claims.json", "%s: the server answered %g requests from its cache (%s grew by %g %s): perturbation was off, so repeated clips were sent unchanged and these figures are partly cached serving",
						step, *m.CacheHits, counter, *m.CacheHits, over)
				case known:
					c.warnKindf(KindCacheTokens, "claims.json", "%s: %s grew by %g %s: %s (prefix caching), which a prompt prefix shared by distinct audio also counts; not requests answered from a cache",
						step, counter, *m.CacheHits, over, row.Noun())
				default:
					c.warnf("claims.json", "%s: the server's cache counters grew by %g %s", step, *m.CacheHits, over)
				}
			}
		}
		if !seen && len(t.Levels) > 0 {
			unobserved = append(unobserved, t.Target)
		}
	}
	for _, name := range unobserved {
		c.warnf("claims.json", "cache hits not observable for %s: %s; a server that caches without counting may have answered from its cache unseen; %s", name, noCacheCounter(ev, name), probeSays(ev, name))
		ok = false
	}
	if !ok {
		return ""
	}
	return "no cache hits"
}

// probeSays words what target's active cache probe says, in one of its
// three states (and the probe that was asked for but is missing), for the
// line of a target whose cache hits no counter shows.
func probeSays(ev *evidence, target string) string {
	b, p := claims.ProbeBearingOf(*ev.run, *ev.claims, target)
	switch b {
	case claims.ProbeNotAsked:
		return "cache probe: not probed (the run asked for none)"
	case claims.ProbeMissing:
		return "cache probe: asked for, but claims.json has none for it"
	default:
		return "cache probe: " + p.Verdict
	}
}

// checkCacheProbes reads each target's active cache probe through
// claims.ProbeBearingOf, the function the report words it from, so that
// verify and the report never disagree:
//
//   - a target that caches identical audio in a run made with
//     perturbation off: its figures are inflated by caching (WARN, the
//     report's "Inflated by caching");
//   - a target that caches while perturbation was on: held, the cache
//     never fired on the sweep (every request sent audio never sent
//     before), and said so;
//   - no cache effect seen (the interval below the noise bound): held;
//   - undecided (the interval straddles the noise bound: a cache neither
//     shown nor excluded): WARN in a run with perturbation off, where a
//     cache would inflate the figures; with it on, held as irrelevant
//     (every request of the sweep sent audio never sent before);
//   - a probe without a verdict (fewer than two successes a half): WARN;
//   - the server's own hit counter (vllm:mm_cache_hits_total) growing
//     over the probe when the latencies saw no cache, or the reverse
//     (claims' counter_agrees false): WARN, naming both.
//
// A run that asked for no probe adds nothing here (checkCacheHits says
// "not probed" where no counter shows the cache either). It returns what
// held, "" when anything did not or nothing was probed.
func checkCacheProbes(c *Check, ev *evidence) string {
	if ev.claims == nil {
		return ""
	}
	ok, any, perturbed := true, false, false
	var held []string
	for _, t := range ev.run.Targets {
		b, p := claims.ProbeBearingOf(*ev.run, *ev.claims, t.Name)
		switch b {
		case claims.ProbeNotAsked, claims.ProbeMissing:
			continue // check 7 reports a missing probe
		case claims.ProbeUndecided:
			c.warnKindf(KindCacheProbe, "claims.json", "%s's cache probe is not probed: %d repeats and %d variants succeeded, fewer than 2 a half, so whether it caches identical audio is not observed", t.Name, p.Repeats, p.Variants)
			ok = false
		case claims.ProbeInflated:
			c.warnKindf(KindNoPerturb, "claims.json", "%s: inflated by caching: its cache probe says it %s, and this run sent every clip unchanged (perturbation off), so its figures are partly cached answers, not transcription of new audio", t.Name, p.Verdict)
			ok = false
		case claims.ProbeHeld:
			held = append(held, fmt.Sprintf("%s %s", t.Name, p.Verdict))
			perturbed = true
		case claims.ProbeNoCache:
			held = append(held, fmt.Sprintf("%s: %s (speedup %.2f, 95 %% interval %.2f to %.2f)", t.Name, p.Verdict, p.Speedup, p.SpeedupLo, p.SpeedupHi))
		case claims.ProbeStraddles:
			if !ev.run.Protocol.Perturb {
				c.warnKindf(KindCacheProbe, "claims.json", "%s's cache probe is undecided: speedup %.2f, 95 %% interval %.2f to %.2f straddles the noise bound %.2f, so a cache of identical audio is neither shown nor excluded, and this run sent every clip unchanged (perturbation off); run more pairs", t.Name, p.Speedup, p.SpeedupLo, p.SpeedupHi, claims.ProbeNoise)
				ok = false
			} else {
				held = append(held, fmt.Sprintf("%s: undecided, a cache neither shown nor excluded (speedup %.2f, 95 %% interval %.2f to %.2f)", t.Name, p.Speedup, p.SpeedupLo, p.SpeedupHi))
				perturbed = true
			}
		}
		any = true
		if p.CounterAgrees != nil && !*p.CounterAgrees {
			counter, hits, _ := claims.ProbeCounter(*p)
			c.warnKindf(KindCacheProbe, "claims.json", "%s: the cache probe's latencies and the server's own counter disagree: %s grew by %g over the probe (%d repeats of identical bytes), while the latencies say %s (speedup %.2f, 95 %% interval %.2f to %.2f); %s",
				t.Name, counter, hits, p.Repeats, p.Verdict, p.Speedup, p.SpeedupLo, p.SpeedupHi, probeDisagreement(p.Caches))
			ok = false
		}
	}
	if !ok || !any || len(held) == 0 {
		return ""
	}
	out := "cache probe: " + strings.Join(held, "; ")
	if perturbed {
		out += "; perturbation makes a cache of identical audio irrelevant (every request of the sweep sent audio never sent before)"
	}
	return out
}

// probeDisagreement says what a disagreement between a probe's latencies
// and its counter can mean.
func probeDisagreement(latencyCaches bool) string {
	if latencyCaches {
		return "repeats were faster without the server counting a hit: another cache (or one the counter does not count) answered them, or the counter was reset"
	}
	return "the server answered repeats from its cache without a latency gain beyond noise (a cache that saves less than 10 % of a request, such as a preprocessing cache), so perturbation still matters"
}

// cacheCounterOf names the counter cache_hits of a step was read from
// (claims.CacheDelta over its steps.jsonl line), "" when unknown.
func cacheCounterOf(ev *evidence, target string, concurrency, repeat int) string {
	for _, s := range ev.tel.Steps {
		if s.Target == target && s.Concurrency == concurrency && s.Repeat == repeat {
			before := s.CacheBefore
			if s.CacheMeasure != nil {
				before = s.CacheMeasure
			}
			name, _, err := claims.CacheDelta(before, s.CacheAfter)
			if err != nil {
				return ""
			}
			return name
		}
	}
	return ""
}

// targetEngine is the engine of internal/engine's table a target's
// /v1/models owned_by names (probes before, else after); nil when none.
func targetEngine(ev *evidence, target string) *engine.Engine {
	for _, when := range []string{"before", "after"} {
		sc := capture(ev, target, when)
		if sc == nil {
			continue
		}
		for _, p := range sc.Probes {
			if p.Path != "/v1/models" || p.Status != 200 {
				continue
			}
			if e, ok := engine.ByModelsAnswer([]byte(p.Body)); ok {
				return e
			}
		}
	}
	return nil
}

// noCacheCounter says why a target's cache hits are not observable, from
// its engine's row of the table when its /v1/models names one.
func noCacheCounter(ev *evidence, target string) string {
	const none = "no known cache counter in its /metrics before and after each step (cache_hits is null)"
	e := targetEngine(ev, target)
	switch {
	case e == nil:
		return none
	case len(e.Metrics.CacheCounters) == 0:
		return fmt.Sprintf("its engine (%s, as its /v1/models says) exposes no cache counter in /metrics (cache_hits is null)", e.Name)
	default:
		var names []string
		for _, k := range e.Metrics.CacheCounters {
			if k.Hit {
				names = append(names, k.Name)
			}
		}
		return fmt.Sprintf("its engine (%s, as its /v1/models says) counts cache hits in %s, but none was in its /metrics both before and after a step (cache_hits is null; is /metrics reachable?)", e.Name, strings.Join(names, " or "))
	}
}

// checkRequestKnobs compares the per-request knobs of the run's task
// (engine.RequestKnobsFor; tts's SpeechKnobKeys: initial_codec_chunk_frames,
// which decides a stream's time to first audio): each target's value is its request field
// of that name (run.json's request_fields, sent with every request), else
// what its launch command sets (a deploy config given inline, key = or :
// value), else not observed: a WARN, never a pass. It returns what held,
// "" when anything did not.
func checkRequestKnobs(c *Check, ev *evidence, keys []engine.KnobKey) string {
	var held []string
	ok := true
	for _, key := range keys {
		var values, sources, missing []string
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(key.Path) + `["']?\s*[:=]\s*["']?(\d+)`)
		for _, t := range ev.run.Targets {
			v, from := "", ""
			if x, found := t.RequestFields[key.Path]; found {
				v, from = strings.TrimSpace(x), "request field "+key.Path
			} else if m := re.FindStringSubmatch(t.LaunchCommand); m != nil {
				v, from = m[1], "launch command "+key.Path
			}
			if v == "" {
				missing = append(missing, t.Name)
				continue
			}
			values = append(values, v)
			sources = append(sources, fmt.Sprintf("%s %s (declared: %s)", t.Name, v, from))
		}
		switch {
		case len(missing) > 0:
			c.add(Finding{Status: Warn, Kind: KindKnobNotObserved, Path: "servers/", Reason: fmt.Sprintf(
				"%s: not observed on %s, so the targets' first audio cannot be compared as like with like (both engines take %s per request: give every target the same value in its request fields, or record the deploy config that sets it)",
				key.Knob, strings.Join(missing, ", "), key.Path)})
			ok = false
		case slices.ContainsFunc(values, func(v string) bool { return v != values[0] }):
			c.warnf("servers/", "%s differs: %s", key.Knob, strings.Join(sources, "; "))
			ok = false
		default:
			held = append(held, fmt.Sprintf("%s %s", key.Knob, values[0]))
		}
	}
	if !ok {
		return ""
	}
	return "same speech knobs: " + strings.Join(held, "; ")
}
