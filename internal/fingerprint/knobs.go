package fingerprint

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// Where a knob's value came from.
const (
	// KnobServed: the server said it about itself (vLLM's dev-mode
	// /server_info, vllm:cache_config_info in /metrics, SGLang's
	// /get_server_info).
	KnobServed = "served"
	// KnobDeclared: the launch command says it (--launch, --launch-cmd).
	KnobDeclared = "declared"
	// KnobAbsent: neither said it; the knob is not observed.
	KnobAbsent = "absent"
)

// The server knobs a fair comparison holds equal (internal/engine's
// names, kept here under their old names).
const (
	KnobMaxRunning    = engine.KnobMaxRunning
	KnobGPUMemory     = engine.KnobGPUMemory
	KnobDType         = engine.KnobDType
	KnobPrefixCaching = engine.KnobPrefixCaching
)

// KnobNames are the knobs Knobs reports, in order.
var KnobNames = engine.KnobNames

// Knob is one server setting, its value and where the value came from.
type Knob struct {
	Name string
	// Value is canonical so that engines compare: a number as Go's
	// shortest 'g' form ("64", "0.9"), a boolean "true"/"false", a dtype
	// without "torch." ("bfloat16"). "" when Source is KnobAbsent.
	Value  string
	Source string // KnobServed, KnobDeclared or KnobAbsent
	// From says exactly where: the endpoint and key
	// ("/server_info?config_format=json scheduler_config.max_num_seqs",
	// "/metrics vllm:cache_config_info gpu_memory_utilization") or the
	// launch flag ("--max-num-seqs").
	From string
}

// knobKeys are every engine's names for the knobs (internal/engine's
// rows: vLLM's nested /server_info?config_format=json keys, which
// vllm/entrypoints/serve/instrumentator/server_info.py@4652ef5d dumps from
// VllmConfig, and its CLI flags; SGLang's server_args keys and flags,
// which SGLang-Omni's launcher passes on), by knob, in the order they are
// tried.
var knobKeys = engine.KnobKeys()

// LaunchFlags are the launch flags DeclaredKnobs reads, of both engines:
// vLLM's --max-num-seqs, --gpu-memory-utilization, --dtype,
// --enable-prefix-caching / --no-enable-prefix-caching; SGLang(-Omni)'s
// --max-running-requests, --mem-fraction-static, --disable-radix-cache.
// Others it records as-is (--max-model-len, --max-num-batched-tokens,
// --max-num-queued-reqs, --context-length, --max-queued-requests, ...)
// through LaunchArgs.
func LaunchFlags() []string {
	var out []string
	for _, k := range knobKeys {
		if k.Flag != "" && !slices.Contains(out, k.Flag) {
			out = append(out, k.Flag)
		}
	}
	return out
}

// Knobs returns every one of KnobNames for one server: served when a probe
// says it, else declared when the launch command does, else absent.
func Knobs(probes []schemas.Probe, launchCommand string) []Knob {
	served := ServedKnobs(probes)
	declared := DeclaredKnobs(launchCommand)
	out := make([]Knob, 0, len(KnobNames))
	for _, name := range KnobNames {
		switch {
		case served[name].Source != "":
			out = append(out, served[name])
		case declared[name].Source != "":
			out = append(out, declared[name])
		default:
			out = append(out, Knob{Name: name, Source: KnobAbsent})
		}
	}
	return out
}

// ServedKnobs reads the knobs a server said about itself in a capture: the
// JSON of /server_info (vLLM dev mode, flat or nested under vllm_config, or
// vllm_config as str(VllmConfig)) and /get_server_info (SGLang), the
// labels of vllm:cache_config_info in /metrics (vLLM without dev mode:
// gpu_memory_utilization, enable_prefix_caching), and the settings
// benchseal's simulator publishes in its /v1/models
// (engine.SimulatorSettingsField: max running requests).
func ServedKnobs(probes []schemas.Probe) map[string]Knob {
	out := map[string]Knob{}
	set := func(name, value, from string) {
		if _, ok := out[name]; !ok && value != "" {
			out[name] = Knob{Name: name, Value: value, Source: KnobServed, From: from}
		}
	}
	for _, p := range probes {
		if p.Status != 200 {
			continue
		}
		path, _, _ := strings.Cut(p.Path, "?")
		switch path {
		case "/server_info", "/get_server_info":
			var m map[string]any
			if json.Unmarshal([]byte(p.Body), &m) != nil {
				continue
			}
			root := m
			prefix := ""
			switch c := m["vllm_config"].(type) {
			case map[string]any:
				root, prefix = c, "vllm_config."
			case string:
				for name, kv := range textConfigKnobs(c) {
					set(name, kv[1], p.Path+" vllm_config "+kv[0])
				}
			}
			for _, k := range knobKeys {
				if k.Path == "" {
					continue
				}
				if v, ok := lookup(root, k.Path); ok {
					set(k.Knob, canon(v, k.Negate), p.Path+" "+prefix+k.Path)
				}
			}
		case "/metrics":
			fams, err := ParseMetrics([]byte(p.Body))
			if err != nil {
				continue
			}
			f := fams["vllm:cache_config_info"]
			if f == nil || len(f.GetMetric()) == 0 {
				continue
			}
			for _, l := range f.GetMetric()[0].GetLabel() {
				switch l.GetName() {
				case "gpu_memory_utilization":
					set(KnobGPUMemory, canon(l.GetValue(), false), "/metrics vllm:cache_config_info gpu_memory_utilization")
				case "enable_prefix_caching":
					set(KnobPrefixCaching, canon(l.GetValue(), false), "/metrics vllm:cache_config_info enable_prefix_caching")
				}
			}
		}
	}
	// benchseal's simulator publishes its settings in its /v1/models;
	// those that are engine knobs (max running requests) are served,
	// after what the persona's engine self-description says (vLLM's
	// dev-mode /server_info, which the simulator fills from the same
	// settings).
	for _, p := range probes {
		if p.Status != 200 || p.Path != "/v1/models" {
			continue
		}
		settings := engine.SimulatedSettings(p.Body)
		for _, k := range engine.SimSettings {
			if v, ok := settings[k.Key]; ok && slices.Contains(KnobNames, k.Knob) {
				set(k.Knob, canon(v, false), SimSettingsFrom(k.Key))
			}
		}
	}
	return out
}

// textConfigRe finds knobs in str(VllmConfig), the text form of vLLM's
// /server_info: "dtype=torch.bfloat16, ..., enable_prefix_caching=True".
var textConfigRe = regexp.MustCompile(`\b(dtype|enable_prefix_caching|max_num_seqs|gpu_memory_utilization)=([^,\s]+)`)

func textConfigKnobs(s string) map[string][2]string {
	out := map[string][2]string{}
	for _, m := range textConfigRe.FindAllStringSubmatch(s, -1) {
		var name string
		for _, k := range knobKeys {
			if k.Path == m[1] {
				name = k.Knob
				break
			}
		}
		if _, ok := out[name]; name != "" && !ok {
			out[name] = [2]string{m[1], canon(m[2], false)}
		}
	}
	return out
}

// lookup walks a dotted path through nested objects.
func lookup(m map[string]any, path string) (any, bool) {
	var v any = m
	for part := range strings.SplitSeq(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

// canon writes a knob value so that engines compare: JSON null is ""
// (not said), numbers in shortest form, Python's True/False as booleans,
// dtypes without "torch.".
func canon(v any, negate bool) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x != negate)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		s := strings.TrimSpace(strings.Trim(strings.TrimSpace(x), `'"`))
		switch strings.ToLower(s) {
		case "true":
			return strconv.FormatBool(!negate)
		case "false":
			return strconv.FormatBool(negate)
		case "none", "null":
			return ""
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return strings.TrimPrefix(s, "torch.")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// DeclaredKnobs reads the knobs a launch command sets with the known flags
// of both engines (LaunchFlags), --flag value and --flag=value alike; the
// last occurrence wins, as with argparse.
func DeclaredKnobs(command string) map[string]Knob {
	out := map[string]Knob{}
	args := LaunchArgs(command)
	for i := 0; i < len(args); i++ {
		flag, val, hasVal := strings.Cut(args[i], "=")
		for _, k := range knobKeys {
			if k.Flag == "" || k.Flag != flag {
				continue
			}
			var v string
			switch {
			case k.Bare && !hasVal:
				v = strconv.FormatBool(!k.Negate)
			case hasVal:
				v = canon(val, k.Negate)
			case i+1 < len(args):
				i++
				v = canon(args[i], k.Negate)
			}
			if v != "" {
				out[k.Knob] = Knob{Name: k.Knob, Value: v, Source: KnobDeclared, From: "launch command " + flag}
			}
			break
		}
	}
	return out
}

// LaunchArgs splits a launch command into words as /bin/sh would for the
// plain cases: blanks separate, '...' and "..." quote, a backslash escapes
// the next character (and joins a line ending in it).
func LaunchArgs(command string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	rs := []rune(command)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(rs):
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				inWord = true
			}
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// SimSettingsFrom is a Knob's From for a setting benchseal's simulator
// published in its /v1/models (engine.SimulatorSettingsField): it ends in
// "(simulator settings)", which the fairness check and the report name.
func SimSettingsFrom(key string) string {
	return "/v1/models " + engine.SimulatorSettingsField + "." + key + " (simulator settings)"
}

// FromSimSettings says whether a knob's From is the simulator's
// published settings.
func FromSimSettings(k Knob) bool {
	return strings.HasPrefix(k.From, "/v1/models "+engine.SimulatorSettingsField+".")
}

// SimKnobs are the compared settings of benchseal's simulator
// (engine.SimSettings with Compared) that are no engine knob, read from
// the /v1/models of a capture, each served; nil when the capture is not
// the simulator's (or one from before it published them). A setting the
// capture lacks is absent.
func SimKnobs(probes []schemas.Probe) []Knob {
	var out []Knob
	for _, k := range SimSettingKnobs(probes) {
		if !slices.Contains(KnobNames, k.Name) {
			out = append(out, k)
		}
	}
	return out
}

// SimSettingKnobs are every compared setting of benchseal's simulator in
// a capture's /v1/models, engine knobs (max running requests) included,
// in engine.SimSettings order; nil when it published none.
func SimSettingKnobs(probes []schemas.Probe) []Knob {
	var settings map[string]any
	for _, p := range probes {
		if p.Path == "/v1/models" && p.Status == 200 {
			settings = engine.SimulatedSettings(p.Body)
			break
		}
	}
	if settings == nil {
		return nil
	}
	var out []Knob
	for _, k := range engine.SimSettings {
		if !k.Compared {
			continue
		}
		v, ok := settings[k.Key]
		if !ok {
			out = append(out, Knob{Name: k.Knob, Source: KnobAbsent})
			continue
		}
		out = append(out, Knob{Name: k.Knob, Value: canon(v, false), Source: KnobServed, From: SimSettingsFrom(k.Key)})
	}
	return out
}

// SimKnobNames are the names SimKnobs reports, in order.
func SimKnobNames() []string {
	var out []string
	for _, k := range engine.SimSettings {
		if k.Compared && !slices.Contains(KnobNames, k.Knob) {
			out = append(out, k.Knob)
		}
	}
	return out
}
