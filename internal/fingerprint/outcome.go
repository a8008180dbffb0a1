package fingerprint

import (
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
)

// OutcomeKnob is a setting of the engine table's Knobs.Outcome that a
// launch command sets: its name as written, its value ("" for a bare
// flag) and what it changes.
type OutcomeKnob struct {
	Engine string
	Name   string
	Value  string
	Effect string
	Source string
}

// OutcomeKnobs reads from a launch command the settings that change what
// a request is answered (every engine's Knobs.Outcome): environment
// assignments before the program (VLLM_X=1 vllm serve ..., env VLLM_X=1
// ..., docker's -e VLLM_X=1 or --env VLLM_X=1) and launch flags (--flag
// value, --flag=value, or a bare --flag; a row name ending in "." or "_"
// matches every flag it starts). In the order the command gives them,
// each under the first engine of the table that has it.
func OutcomeKnobs(command string) []OutcomeKnob {
	args := LaunchArgs(command)
	var out []OutcomeKnob
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "-e" || a == "--env") && i+1 < len(args) {
			i++
			a = args[i]
		}
		name, val, hasVal := strings.Cut(a, "=")
		flag := strings.HasPrefix(name, "--")
	rows:
		for _, e := range engine.All() {
			for _, k := range e.Knobs.Outcome {
				match := name == k.Name
				if strings.HasSuffix(k.Name, ".") || strings.HasSuffix(k.Name, "_") {
					match = flag && strings.HasPrefix(name, k.Name)
				}
				if !match || k.Env == flag || k.Env && !hasVal {
					continue
				}
				if flag && !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					val = args[i+1]
				}
				out = append(out, OutcomeKnob{Engine: e.Name, Name: name, Value: val, Effect: k.Effect, Source: k.Source})
				break rows // vLLM-Omni shares vLLM's: the first row says it
			}
		}
	}
	return out
}
