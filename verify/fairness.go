package verify

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// knob is one server setting a fair comparison holds equal, under the
// names the engines use for it in their self-description
// (/server_info, /get_server_info): vLLM's first, SGLang's second.
type knob struct {
	name   string
	keys   []string
	negate map[string]bool // keys whose boolean means the opposite (disable_*)
}

var knobs = []knob{
	{name: "max running requests", keys: []string{"max_num_seqs", "max_running_requests"}},
	{name: "GPU memory fraction", keys: []string{"gpu_memory_utilization", "mem_fraction_static"}},
	{name: "dtype", keys: []string{"dtype"}},
	{name: "prefix caching", keys: []string{"enable_prefix_caching", "disable_radix_cache"}, negate: map[string]bool{"disable_radix_cache": true}},
}

// selfDescription paths, in order of preference.
var infoPaths = []string{"/server_info", "/get_server_info"}

// checkFairness is check 8. Data a sub-check needs but the run did not
// capture makes it WARN ("not available") when there are targets to
// compare: an unchecked comparison is not a fair one.
func checkFairness(rep *Report, ev *evidence) {
	c := rep.Check(CheckFairness)
	run := ev.run
	var done []string
	if len(run.Targets) > 1 {
		if checkGPUs(c, ev) {
			done = append(done, "same GPU model and driver")
		}
		if checkKnobs(c, ev) {
			done = append(done, "same server knobs")
		}
	} else {
		done = append(done, "one target: nothing to compare")
		checkGPUIndices(c, ev)
	}
	if checkCacheHits(c, ev) {
		done = append(done, "no cache hits")
	}
	switch c.Status {
	case Pass:
		c.Summary = strings.Join(done, "; ")
	default:
		c.Summary = fmt.Sprintf("%d targets: the comparison is not shown fair (see below)", len(run.Targets))
		if len(done) > 0 {
			c.Summary += "; held: " + strings.Join(done, "; ")
		}
	}
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
		// Without --gpus per target, only a machine of one GPU model
		// shows it.
		all := map[string]bool{}
		for _, d := range g.GPUs {
			all[d.Name] = true
		}
		if len(all) > 1 {
			c.warnf("run.json", "the machine has GPUs of %d models and not every target says which it used (--gpus)", len(all))
			return false
		}
		return ok
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
	return ok
}

// serverInfo is a target's self-description from its captured probes.
func serverInfo(ev *evidence, target string) (map[string]any, string) {
	for _, name := range ev.f.glob(path.Join("servers", target, "*.json")) {
		b, err := ev.f.read(name)
		if err != nil {
			continue
		}
		var cap schemas.ServerCapture
		if json.Unmarshal(b, &cap) != nil || cap.Schema != schemas.ProbeSchema {
			continue
		}
		for _, want := range infoPaths {
			for _, p := range cap.Probes {
				if p.Path != want || p.Status != 200 {
					continue
				}
				var m map[string]any
				if json.Unmarshal([]byte(p.Body), &m) == nil {
					return m, name
				}
			}
		}
	}
	return nil, ""
}

// checkKnobs compares the knobs of every target with the first one's.
func checkKnobs(c *Check, ev *evidence) bool {
	type desc struct {
		vals map[string]string
		file string
	}
	var ds []desc
	for _, t := range ev.run.Targets {
		m, file := serverInfo(ev, t.Name)
		if m == nil {
			c.warnf(path.Join("servers", t.Name), "server configuration not available: %s's self-description (/server_info, /get_server_info) was not captured", t.Name)
			return false
		}
		vals := map[string]string{}
		for _, k := range knobs {
			for _, key := range k.keys {
				v, ok := m[key]
				if !ok {
					continue
				}
				if b, isBool := v.(bool); isBool && k.negate[key] {
					v = !b
				}
				lit, _ := json.Marshal(v)
				vals[k.name] = string(lit)
				break
			}
		}
		ds = append(ds, desc{vals, file})
	}
	ok := true
	for i := 1; i < len(ds); i++ {
		for _, k := range knobs {
			a, aok := ds[0].vals[k.name]
			b, bok := ds[i].vals[k.name]
			switch {
			case !aok && !bok:
			case !aok || !bok:
				c.warnf(ds[i].file, "%s: %s does not say it, so it cannot be compared", k.name, pick(!aok, ev.run.Targets[0].Name, ev.run.Targets[i].Name))
				ok = false
			case a != b:
				c.warnf(ds[i].file, "%s differs: %s has %s, %s has %s", k.name, ev.run.Targets[0].Name, a, ev.run.Targets[i].Name, b)
				ok = false
			}
		}
	}
	return ok
}

func pick(first bool, a, b string) string {
	if first {
		return a
	}
	return b
}

// checkCacheHits warns about server cache hits counted during
// measurement (claims' cache_hits, from /metrics deltas).
func checkCacheHits(c *Check, ev *evidence) bool {
	if ev.claims == nil {
		return false
	}
	ok := true
	for _, t := range ev.claims.Targets {
		for _, l := range t.Levels {
			for r, m := range l.Repeats {
				if m.CacheHits != nil && *m.CacheHits > 0 {
					c.warnf("claims.json", "%s c=%d repeat %d: the server's cache counters grew by %g during measurement", t.Target, l.Concurrency, r+1, *m.CacheHits)
					ok = false
				}
			}
		}
	}
	return ok
}
