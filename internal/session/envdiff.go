package session

// A replay's environment against the sealed run's, before it measures:
// per target the engine, its version, the model, its revision, the launch
// command (run.json's, redacted) and the server knobs (read as verify's fairness check reads them:
// fingerprint.Knobs over probes-before.json and the launch command, served
// / declared / absent); per machine the GPUs (NVML, env/gpu.json) and the
// host's cores (env/host.json). Both sides are read from the documents the
// runs wrote, so the diff says only what the evidence says.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/schemas"
)

// Items of a ReplayDiff, in the order rows are listed.
const (
	ItemEngine        = "engine"
	ItemEngineVersion = "engine version"
	ItemModel         = "model"
	ItemModelRevision = "model revision"
	ItemLaunchCommand = schemas.DiffItemLaunchCommand
	ItemGPUModel      = "gpu model"
	ItemGPUDriver     = "gpu driver"
	ItemGPUCount      = "gpu count"
	ItemGPUMemory     = "gpu memory"
	ItemHostCores     = "host cores"
)

// hardwareItems are the items whose difference makes a replay's figures
// not comparable with the sealed ones. The driver is software: it differs
// the way an engine version does, and is shown, not held against the
// figures.
var hardwareItems = []string{ItemGPUModel, ItemGPUCount, ItemGPUMemory, ItemHostCores}

// EnvDocs are the documents of a run directory the diff reads: env/gpu.json,
// env/host.json and each target's probes-before.json.
func EnvDocs(targets []schemas.Target) []string {
	names := []string{schemas.GPUInfoFile, schemas.HostInfoFile}
	for _, t := range targets {
		names = append(names, schemas.ServerPath(t.Name, schemas.ProbesBeforeFile))
	}
	return names
}

// ReadEnvDocs reads EnvDocs from the run directory dir; a file that is
// not there is left out (the diff says it was not observed).
func ReadEnvDocs(dir string, targets []schemas.Target) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range EnvDocs(targets) {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			out[name] = b
		}
	}
	return out
}

// side is one side's value of an item: Value and From, or Missing.
type side struct{ value, from, missing string }

// EnvDiff compares the sealed run's environment (s.Files, s.Run.Targets)
// with a replay's: replay holds its EnvDocs by run-directory path,
// targets are its run.json targets (their launch commands as launched).
// Targets the replay does not have are left out.
func (s *Sealed) EnvDiff(replay map[string][]byte, targets []schemas.Target) schemas.ReplayDiff {
	d := schemas.ReplayDiff{Schema: schemas.ReplayDiffSchema, Rows: []schemas.ReplayDiffRow{}}
	sealedByName := map[string]schemas.Target{}
	for _, t := range s.Run.Targets {
		sealedByName[t.Name] = t
	}
	for _, rt := range targets {
		st, ok := sealedByName[rt.Name]
		if !ok {
			continue
		}
		sp, rp := probesOf(s.Files, st.Name), probesOf(replay, rt.Name)
		add := func(item string, a, b side) { d.Rows = append(d.Rows, row(rt.Name, item, a, b)) }
		add(ItemEngine, engineSide(sp), engineSide(rp))
		add(ItemEngineVersion, versionSide(sp), versionSide(rp))
		add(ItemModel, modelSide(sp, st.Model), modelSide(rp, rt.Model))
		add(ItemModelRevision, revisionSide(st.LaunchCommand), revisionSide(rt.LaunchCommand))
		add(ItemLaunchCommand, launchSide(st.LaunchCommand), launchSide(rt.LaunchCommand))
		if s.launchOverridden[rt.Name] {
			r := &d.Rows[len(d.Rows)-1]
			r.ReplayFrom += " (" + OverriddenLaunch + ")"
		}
		sk, rk := knobSides(sp, st.LaunchCommand), knobSides(rp, rt.LaunchCommand)
		for _, name := range fingerprint.KnobNames {
			add("knob "+name, sk[name], rk[name])
		}
	}
	sg, rg := gpuSides(s.Files, s.Run.Targets), gpuSides(replay, targets)
	sh, rh := hostSide(s.Files), hostSide(replay)
	for _, item := range []string{ItemGPUModel, ItemGPUDriver, ItemGPUCount, ItemGPUMemory} {
		d.Rows = append(d.Rows, row("", item, sg[item], rg[item]))
	}
	d.Rows = append(d.Rows, row("", ItemHostCores, sh, rh))
	return d
}

// row words one item's state.
func row(target, item string, a, b side) schemas.ReplayDiffRow {
	r := schemas.ReplayDiffRow{Target: target, Item: item, Hardware: slices.Contains(hardwareItems, item),
		Sealed: a.value, Replay: b.value, SealedFrom: a.from, ReplayFrom: b.from}
	var missing []string
	switch {
	case a.value == "" && b.value == "" && a.missing == b.missing:
		missing = append(missing, "both: "+a.missing)
	default:
		if a.value == "" {
			missing = append(missing, "sealed: "+a.missing)
		}
		if b.value == "" {
			missing = append(missing, "replay: "+b.missing)
		}
	}
	switch {
	case len(missing) > 0:
		r.State, r.Missing = schemas.DiffNotObserved, strings.Join(missing, "; ")
	case a.value == b.value:
		r.State = schemas.DiffSame
	default:
		r.State = schemas.DiffDiffers
	}
	return r
}

// OverriddenLaunch marks, in a launch command row's ReplayFrom, a replay
// that started the target with another command than the sealed one
// (ReplayLaunch.Commands; also in replay_of.overrides).
const OverriddenLaunch = "given to the replay instead of the sealed command"

// launchSide: the command that started the server, as run.json records it
// (redacted). A run that recorded none had its server started elsewhere.
func launchSide(cmd string) side {
	if cmd == "" {
		return side{missing: "run.json records no launch command (the server was started elsewhere)"}
	}
	return side{value: cmd, from: "run.json launch_command"}
}

// probeSet is a target's probes before its run, with where they were read.
type probeSet struct {
	file   string
	probes []schemas.Probe
	found  bool
}

func probesOf(docs map[string][]byte, target string) probeSet {
	name := schemas.ServerPath(target, schemas.ProbesBeforeFile)
	ps := probeSet{file: name}
	var c schemas.ServerCapture
	if b, ok := docs[name]; ok && json.Unmarshal(b, &c) == nil && c.Schema == schemas.ProbeSchema {
		ps.probes, ps.found = c.Probes, true
	}
	return ps
}

// answer is the body of the endpoint's 200 answer.
func (ps probeSet) answer(endpoint string) ([]byte, bool) {
	for _, p := range ps.probes {
		if p.Path == endpoint && p.Status == http.StatusOK {
			return []byte(p.Body), true
		}
	}
	return nil, false
}

func (ps probeSet) none() side { return side{missing: ps.file + " was not captured"} }

// engineSide: who serves, as /v1/models' owned_by says (EngineOf).
func engineSide(ps probeSet) side {
	if !ps.found {
		return ps.none()
	}
	b, ok := ps.answer("/v1/models")
	if !ok {
		return side{missing: "/v1/models did not answer 200 (" + ps.file + ")"}
	}
	if e := EngineOf(b); e != "" {
		return side{value: e, from: ps.file + " /v1/models owned_by"}
	}
	return side{missing: "/v1/models names no owned_by (" + ps.file + ")"}
}

// versionSide: the engine's version, from vLLM's /version {"version"}
// (vllm/entrypoints/serve/instrumentator/basic.py, per internal/engine's
// facts) or SGLang's /get_server_info "version" (sgl-project/sglang
// python/sglang/srt/entrypoints/http_server.py get_server_info:
// "version": __version__; commit not recorded). SGLang-Omni serves
// neither, so its version is not observed.
func versionSide(ps probeSet) side {
	if !ps.found {
		return ps.none()
	}
	for _, ep := range []string{"/version", "/get_server_info"} {
		b, ok := ps.answer(ep)
		if !ok {
			continue
		}
		var v struct {
			Version any `json:"version"`
		}
		if json.Unmarshal(b, &v) == nil && v.Version != nil {
			if s := strings.TrimSpace(fmt.Sprint(v.Version)); s != "" {
				return side{value: s, from: ps.file + " " + ep + " version"}
			}
		}
	}
	return side{missing: "neither /version nor /get_server_info said a version (" + ps.file + "; SGLang-Omni serves neither)"}
}

// modelSide: the requested model as /v1/models lists it, with the root it
// was loaded from where that differs (vLLM's ModelCard root).
func modelSide(ps probeSet, model string) side {
	if !ps.found {
		return ps.none()
	}
	b, ok := ps.answer("/v1/models")
	if !ok {
		return side{missing: "/v1/models did not answer 200 (" + ps.file + ")"}
	}
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if json.Unmarshal(b, &list) != nil {
		return side{missing: "/v1/models is not a model list (" + ps.file + ")"}
	}
	for _, m := range list.Data {
		if m.ID != model {
			continue
		}
		v := m.ID
		if m.Root != "" && m.Root != m.ID {
			v += " (root " + m.Root + ")"
		}
		return side{value: v, from: ps.file + " /v1/models"}
	}
	return side{missing: fmt.Sprintf("/v1/models does not list %q (%s)", model, ps.file)}
}

// revisionSide: the model revision the launch command asks for
// (--revision, a flag of both vLLM and SGLang).
func revisionSide(command string) side {
	if command == "" {
		return side{missing: "no launch command recorded"}
	}
	args := fingerprint.LaunchArgs(command)
	rev := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--revision="); ok {
			rev = v
		} else if a == "--revision" && i+1 < len(args) {
			rev = args[i+1]
		}
	}
	if rev == "" {
		return side{missing: "the launch command names no --revision"}
	}
	return side{value: rev, from: "declared: launch command --revision"}
}

// knobSides reads the knobs as verify's fairness check does
// (fingerprint.Knobs: served, else declared, else absent).
func knobSides(ps probeSet, command string) map[string]side {
	out := map[string]side{}
	for _, k := range fingerprint.Knobs(ps.probes, command) {
		if k.Source == fingerprint.KnobAbsent {
			out[k.Name] = side{missing: "absent: neither served in " + ps.file + " nor declared by the launch command"}
			continue
		}
		out[k.Name] = side{value: k.Value, from: k.Source + ": " + k.From}
	}
	return out
}

// gpuSides reads env/gpu.json: the GPUs the targets name (all of them
// when none does).
func gpuSides(docs map[string][]byte, targets []schemas.Target) map[string]side {
	out := map[string]side{}
	miss := func(why string) map[string]side {
		for _, item := range []string{ItemGPUModel, ItemGPUDriver, ItemGPUCount, ItemGPUMemory} {
			out[item] = side{missing: why}
		}
		return out
	}
	b, ok := docs[schemas.GPUInfoFile]
	if !ok {
		return miss(schemas.GPUInfoFile + " was not recorded")
	}
	var g schemas.GPUInfo
	if err := json.Unmarshal(b, &g); err != nil {
		return miss(schemas.GPUInfoFile + ": " + err.Error())
	}
	if !g.Available {
		return miss("no GPU seen by NVML (" + schemas.GPUInfoFile + ": " + g.Reason + ")")
	}
	want := map[int]bool{}
	for _, t := range targets {
		for _, i := range t.GPUs {
			want[i] = true
		}
	}
	var names, mems []string
	n := 0
	for _, dev := range g.GPUs {
		if len(want) > 0 && !want[dev.Index] {
			continue
		}
		n++
		if !slices.Contains(names, dev.Name) {
			names = append(names, dev.Name)
		}
		if dev.MemoryTotalBytes != nil {
			if m := fmt.Sprintf("%d MiB", *dev.MemoryTotalBytes>>20); !slices.Contains(mems, m) {
				mems = append(mems, m)
			}
		}
	}
	from := schemas.GPUInfoFile
	if len(want) > 0 {
		from += " (the targets' GPUs)"
	}
	if n == 0 {
		return miss(from + " lists none of the targets' GPUs")
	}
	slices.Sort(names)
	slices.Sort(mems)
	out[ItemGPUModel] = side{value: strings.Join(names, ", "), from: from}
	out[ItemGPUCount] = side{value: fmt.Sprint(n), from: from}
	out[ItemGPUMemory] = side{value: strings.Join(mems, ", "), from: from}
	if len(mems) == 0 {
		out[ItemGPUMemory] = side{missing: "NVML did not report the memory (" + schemas.GPUInfoFile + ")"}
	}
	out[ItemGPUDriver] = side{value: g.DriverVersion, from: from}
	if g.DriverVersion == "" {
		out[ItemGPUDriver] = side{missing: "NVML did not report the driver (" + schemas.GPUInfoFile + ")"}
	}
	return out
}

// hostSide reads env/host.json's logical CPUs (and physical cores when
// known).
func hostSide(docs map[string][]byte) side {
	b, ok := docs[schemas.HostInfoFile]
	if !ok {
		return side{missing: schemas.HostInfoFile + " was not recorded"}
	}
	var h schemas.HostInfo
	if err := json.Unmarshal(b, &h); err != nil || h.CPUs <= 0 {
		return side{missing: schemas.HostInfoFile + " says no CPU count"}
	}
	v := fmt.Sprintf("%d logical", h.CPUs)
	if h.CPUCores > 0 {
		v += fmt.Sprintf(", %d physical", h.CPUCores)
	}
	return side{value: v, from: schemas.HostInfoFile}
}
