package verify

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// checkGPUIndices checks, for a run of one target (two or more are
// compared by checkGPUs, which does the same), that every NVML index
// run.json gives the target is a GPU env/gpu.json lists: a run once
// accepted --gpu a=0,5 on a two-GPU host, sampled GPU 0 only and published
// its peaks as the target's.
func checkGPUIndices(c *Check, ev *evidence) {
	const name = "env/gpu.json"
	for _, t := range ev.run.Targets {
		if len(t.GPUs) == 0 {
			continue
		}
		var g schemas.GPUInfo
		if !ev.f.has(name) {
			c.warnf(name, "target %s lists GPUs but the run recorded no env/gpu.json: its GPU figures are not observed", t.Name)
			continue
		}
		b, err := ev.f.read(name)
		if err == nil {
			err = json.Unmarshal(b, &g)
		}
		if err != nil {
			c.failf(name, err, "cannot be decoded: %v", err)
			continue
		}
		if !g.Available {
			c.warnf(name, "target %s lists GPUs but NVML saw none (%s): its GPU figures are not observed", t.Name, g.Reason)
			continue
		}
		for _, i := range t.GPUs {
			if !slices.ContainsFunc(g.GPUs, func(d schemas.GPUDevice) bool { return d.Index == i }) {
				c.failf("run.json", nil, "target %s runs on GPU %d, which env/gpu.json does not list", t.Name, i)
			}
		}
	}
}

// gpusNotNamed says which targets name no GPU: the GPUs env/gpu.json lists
// are the host's where benchseal ran, and a target that names none of
// them (a remote server, or a run that named no GPUs) shows nothing of
// its own. The CLI names the flag (KindGPUNotObserved).
func gpusNotNamed(c *Check, ev *evidence) {
	var unnamed []string
	for _, t := range ev.run.Targets {
		if len(t.GPUs) == 0 {
			unnamed = append(unnamed, t.Name)
		}
	}
	c.warnKindf(KindGPUNotObserved, "run.json", "the GPU model of %s is not observed: no GPU was named for it and sampled while it ran, and env/gpu.json describes the host benchseal ran on, not necessarily its server's",
		strings.Join(unnamed, ", "))
}

// gpusSampled reports whether every GPU a target names was sampled
// (telemetry/gpu.jsonl) while the run measured: a GPU named and never
// sampled is a name, not an observation.
func gpusSampled(c *Check, ev *evidence) bool {
	seen := map[int]bool{}
	for _, g := range ev.tel.GPU {
		seen[g.GPU] = true
	}
	ok := true
	for _, t := range ev.run.Targets {
		var never []string
		for _, i := range t.GPUs {
			if !seen[i] {
				never = append(never, strconv.Itoa(i))
			}
		}
		if len(never) > 0 {
			c.warnKindf(KindGPUNotObserved, "telemetry/gpu.jsonl", "the GPUs of %s are not observed: GPU %s named for it was never sampled", t.Name, strings.Join(never, ", "))
			ok = false
		}
	}
	return ok
}
