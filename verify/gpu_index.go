package verify

import (
	"encoding/json"
	"slices"

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
