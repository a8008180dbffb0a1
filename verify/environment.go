package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
	"github.com/pmezard/go-difflib/difflib"
)

// checkEnvironment (check 8, after the fairness comparison) holds the
// facts about the machine and the servers, recorded several times, to each
// other: env/gpu.json's devices, the GPU telemetry samples, each step's
// GPUs in telemetry/steps.jsonl, the recorded command line's --gpu and
// run.json's targets; the model run.json names and the models each
// target's /v1/models listed; and the files under servers/ against what
// the run captures there.
func checkEnvironment(rep *Report, ev *evidence) {
	c := rep.Check(CheckFairness)
	before := c.Status
	checkGPUFacts(c, ev)
	checkCommandLine(c, ev)
	checkModels(c, ev)
	checkServerFiles(c, ev)
	if c.Status > before {
		c.Summary += "; the recorded environment does not agree with itself (see below)"
	}
}

// checkGPUFacts compares the GPU devices gpu.json lists with the samples
// and the steps' GPUs.
func checkGPUFacts(c *Check, ev *evidence) {
	devices := map[int]bool{}
	available := false
	if ev.f.has("env/gpu.json") {
		b, err := ev.f.read("env/gpu.json")
		var g schemas.GPUInfo
		if err == nil && json.Unmarshal(b, &g) == nil {
			available = g.Available
			for _, d := range g.GPUs {
				devices[d.Index] = true
			}
		}
	}
	if len(ev.tel.GPU) > 0 && ev.f.has("env/gpu.json") {
		bad := map[int]bool{}
		for i, s := range ev.tel.GPU {
			if (!available || !devices[s.GPU]) && !bad[s.GPU] {
				bad[s.GPU] = true
				c.add(Finding{Status: Fail, Path: "telemetry/gpu.jsonl", Line: i + 1,
					Reason: fmt.Sprintf("samples GPU %d, which env/gpu.json does not list (%s)", s.GPU, deviceList(devices, available))})
			}
		}
	}
	gpusOf := map[string][]int{}
	for _, t := range ev.run.Targets {
		gpusOf[t.Name] = t.GPUs
	}
	for i, s := range ev.tel.Steps {
		want, ok := gpusOf[s.Target]
		if !ok {
			continue // a step of no target: check 7 says so
		}
		if !sameInts(s.GPUs, want) {
			c.add(Finding{Status: Fail, Path: "telemetry/steps.jsonl", Line: i + 1,
				Reason: fmt.Sprintf("%s c=%d repeat %d ran on GPUs %v, but run.json gives %s GPUs %v", s.Target, s.Concurrency, s.Repeat, s.GPUs, s.Target, want)})
		}
	}
}

func deviceList(devices map[int]bool, available bool) string {
	if !available {
		return "it says no GPU was available"
	}
	var ids []string
	for _, i := range sortedInts(devices) {
		ids = append(ids, strconv.Itoa(i))
	}
	return "it lists " + strings.Join(ids, ", ")
}

func sameInts(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// checkCommandLine compares the command line run.json recorded with
// env/client.json's, and its --gpu NAME=0,1 flags with the targets' GPUs.
func checkCommandLine(c *Check, ev *evidence) {
	cmd := ev.run.Command
	if ev.f.has("env/client.json") {
		b, err := ev.f.read("env/client.json")
		var cl struct {
			Command []string `json:"command"`
		}
		if err == nil && json.Unmarshal(b, &cl) == nil && len(cl.Command) > 0 && len(cmd) > 0 && !slices.Equal(cl.Command, cmd) {
			c.failf("env/client.json", nil, "the command line %q is not run.json's %q", strings.Join(cl.Command, " "), strings.Join(cmd, " "))
		}
	}
	if len(cmd) == 0 {
		return
	}
	flagged := map[string][]int{}
	for i := 0; i < len(cmd); i++ {
		v, ok := strings.CutPrefix(cmd[i], "--gpu=")
		if !ok && cmd[i] == "--gpu" && i+1 < len(cmd) {
			v, ok = cmd[i+1], true
			i++
		}
		if !ok {
			continue
		}
		name, list, found := strings.Cut(v, "=")
		if !found {
			continue
		}
		for _, p := range strings.Split(list, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil && !slices.Contains(flagged[name], n) {
				flagged[name] = append(flagged[name], n)
			}
		}
	}
	for _, t := range ev.run.Targets {
		if !sameInts(flagged[t.Name], t.GPUs) {
			c.failf("run.json", nil, "target %s has GPUs %v, but its recorded command line gave --gpu %s=%s", t.Name, t.GPUs, t.Name, intList(flagged[t.Name]))
		}
	}
}

func intList(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ",")
}

// capture reads servers/<target>/probes-<when>.json.
func capture(ev *evidence, target, when string) *schemas.ServerCapture {
	name := path.Join("servers", target, "probes-"+when+".json")
	if !ev.f.has(name) {
		return nil
	}
	b, err := ev.f.read(name)
	var sc schemas.ServerCapture
	if err != nil || json.Unmarshal(b, &sc) != nil || sc.Schema != schemas.ProbeSchema {
		return nil
	}
	return &sc
}

// checkModels: the model run.json says each target served is among the
// models the target listed at /v1/models when it was probed.
func checkModels(c *Check, ev *evidence) {
	for _, t := range ev.run.Targets {
		if t.Model == "" {
			continue
		}
		for _, when := range []string{"before", "after"} {
			sc := capture(ev, t.Name, when)
			if sc == nil {
				continue
			}
			for _, p := range sc.Probes {
				if p.Path != "/v1/models" || p.Status != 200 || p.Truncated {
					continue
				}
				var list struct {
					Data []struct {
						ID string `json:"id"`
					} `json:"data"`
				}
				if json.Unmarshal([]byte(p.Body), &list) != nil || len(list.Data) == 0 {
					continue
				}
				var ids []string
				for _, d := range list.Data {
					ids = append(ids, d.ID)
				}
				if slices.Contains(ids, t.Model) {
					continue
				}
				where := path.Join("servers", t.Name, "probes-"+when+".json")
				if allowUnlisted(ev.run.Command) {
					c.warnKindf(KindModelUnlisted, where, "%s: the server did not list the model %q (its /v1/models listed %s); the run was told to request it anyway (the recorded command line allows an unlisted model), so the records show what a server that ignores the model field answered",
						t.Name, t.Model, strings.Join(ids, ", "))
					continue
				}
				c.add(Finding{Status: Fail, Kind: KindModelUnlisted, Path: where, Reason: fmt.Sprintf("run.json says %s served model %q, but its /v1/models listed %s",
					t.Name, t.Model, strings.Join(ids, ", "))})
			}
		}
	}
}

// allowUnlisted reports whether the client's command line (run.json's,
// which check 8 holds equal to env/client.json's) asked to request a model
// the server does not list.
func allowUnlisted(args []string) bool {
	for _, a := range args {
		if a == "--allow-unlisted-model" || a == "--allow-unlisted-model=true" {
			return true
		}
	}
	return false
}

// serverFile matches what a run writes under servers/<target>/ besides the
// targets' config files and launch log that run.json names.
var serverFile = regexp.MustCompile(`^servers/[^/]+/(probes-(before|after)\.json|launch\.(log|json)|launch-command\.txt|metrics/c[0-9]+-r[0-9]+-(before|measure|after)\.prom)$`)

// checkServerFiles reports files under servers/ that the run does not
// capture: written by hand, they are evidence no recorder vouches for.
func checkServerFiles(c *Check, ev *evidence) {
	known := map[string]bool{}
	steps := map[string]bool{}
	for _, t := range ev.run.Targets {
		for _, f := range t.ConfigFiles {
			known[f] = true
		}
		if t.LaunchLog != "" {
			known[t.LaunchLog] = true
		}
	}
	for _, k := range schedule(ev.run) {
		steps[k.scrapeFile("before")] = true
		steps[k.scrapeFile("after")] = true
		steps[k.scrapeFile("measure")] = true
	}
	targets := map[string]bool{}
	for _, t := range ev.run.Targets {
		targets[t.Name] = true
		steps[schemas.ProbeMetricsPath(t.Name, 1, "before")] = true
		steps[schemas.ProbeMetricsPath(t.Name, 1, "after")] = true
	}
	extra := 0
	for _, name := range ev.f.names {
		if !strings.HasPrefix(name, "servers/") || known[name] {
			continue
		}
		target := strings.SplitN(name, "/", 3)[1]
		switch {
		case !targets[target]:
		case strings.Contains(name, "/metrics/") && steps[name]:
			continue
		case !strings.Contains(name, "/metrics/") && serverFile.MatchString(name):
			continue
		case schemas.IsServerEvents(name): // check CheckEvents judges them
			continue
		}
		if extra < 5 {
			c.warnf(name, "not a file the run captures (servers/<target>/ holds probes, launch logs, config files run.json names and /metrics scrapes of its steps)")
		}
		extra++
	}
	if extra > 5 {
		c.warnf("servers", "and %d more such files", extra-5)
	}
}

// checkReport (check 6) regenerates REPORT.md, which a run writes into its
// directory (so the bundle carries it), from the sealed run.json,
// claims.json, env/ and probes, with the renderer benchseal run uses
// (Options.RenderReport), and compares: a reader of a post sees the
// report, not the claims.
func checkReport(c *Check, ev *evidence, no *notObserved) {
	const name = "REPORT.md"
	switch {
	case !ev.f.has(name):
		no.add("%s (none sealed)", name)
		return
	case ev.render == nil:
		no.add("%s (not regenerated: no renderer given)", name)
		return
	case ev.claims == nil:
		return // claims.json is missing: reported above
	}
	got, err := ev.f.read(name)
	if err != nil {
		c.add(Finding{Status: Fail, Kind: KindReport, Path: name, Reason: fmt.Sprintf("cannot be read: %v", err), Err: err})
		return
	}
	docs := map[string][]byte{}
	names := append([]string{"run.json", "claims.json", "env/gpu.json", "env/host.json"}, ev.f.glob("servers/*/probes-before.json")...)
	for _, n := range names {
		if ev.f.has(n) {
			if b, err := ev.f.read(n); err == nil {
				docs[n] = b
			}
		}
	}
	want, err := ev.render(docs)
	if err != nil {
		c.add(Finding{Status: Fail, Kind: KindReport, Path: name, Reason: fmt.Sprintf("cannot be regenerated from the sealed data: %v", err), Err: err})
		return
	}
	if bytes.Equal(want, got) {
		return
	}
	diff := lineDiff(string(got), string(want))
	rules, named := schemas.ReportRules(got)
	switch {
	case named && ev.renderRules != 0 && rules == ev.renderRules:
		c.add(Finding{Status: Fail, Kind: KindReport, Path: name, Line: diff.first, Reason: fmt.Sprintf(
			"does not follow from the sealed data: it names report rules %d, this renderer's, under which the data gives other text: %s", rules, diff)})
	case ev.renderTool != "" && ev.renderTool == ev.run.Tool.BinarySHA256:
		c.add(Finding{Status: Fail, Kind: KindReport, Path: name, Line: diff.first, Reason: fmt.Sprintf(
			"does not follow from the sealed data: the build that sealed it renders other text from it: %s", diff)})
	default:
		under := "names no report rules (a build before they were numbered, or its last line was removed)"
		if named {
			under = fmt.Sprintf("names report rules %d", rules)
		}
		mine := "this benchseal's renderer"
		if ev.renderRules != 0 {
			mine = fmt.Sprintf("this benchseal's (rules %d)", ev.renderRules)
		}
		c.add(Finding{Status: Warn, Kind: KindReport, Path: name, Line: diff.first, Reason: fmt.Sprintf(
			"differs from what %s renders from the sealed data: it %s, binary %s wrote it: %s; its text is not checked, the numbers checked are claims.json's (benchseal report renders the report from the data)",
			mine, under, short(ev.run.Tool.BinarySHA256), diff)})
	}
}

// reportDiff is how a sealed REPORT.md differs from the rendered one:
// how many lines differ and the first few, each as said and as rendered.
type reportDiff struct {
	n, first int // lines that differ; the first one's number (1-based)
	quoted   []string
}

func (d reportDiff) String() string {
	s := fmt.Sprintf("%d line(s) differ, from line %d: %s", d.n, d.first, strings.Join(d.quoted, "; "))
	if more := d.n - len(d.quoted); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

// lineDiff compares got and want as a line diff (difflib's
// SequenceMatcher, without its junk heuristic, so that blank lines still
// anchor): a line deleted counts once, not as every line after it.
func lineDiff(got, want string) reportDiff {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	m := difflib.NewMatcherWithJunk(gl, wl, false, nil)
	var d reportDiff
	for _, op := range m.GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		n := max(op.I2-op.I1, op.J2-op.J1)
		d.n += n
		if d.first == 0 {
			d.first = op.I1 + 1
		}
		for k := 0; k < n && len(d.quoted) < 3; k++ {
			var g, w string
			if op.I1+k < op.I2 {
				g = gl[op.I1+k]
			}
			if op.J1+k < op.J2 {
				w = wl[op.J1+k]
			}
			switch {
			case op.Tag == 'd' || op.J1+k >= op.J2:
				d.quoted = append(d.quoted, fmt.Sprintf("line %d %q is not what the data gives", op.I1+k+1, clipLine(g)))
			case op.Tag == 'i' || op.I1+k >= op.I2:
				d.quoted = append(d.quoted, fmt.Sprintf("before line %d the data gives %q, which it leaves out", op.I1+1, clipLine(w)))
			default:
				d.quoted = append(d.quoted, fmt.Sprintf("line %d says %q where the data gives %q", op.I1+k+1, clipLine(g), clipLine(w)))
			}
		}
	}
	return d
}

func clipLine(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
