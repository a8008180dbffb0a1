package main

// This file owns what every command's --help shows beyond its own text: an
// example (for commands whose file gives none) and the EXIT STATUS of that
// command. One row per command; a command without a row fails
// TestEveryCommandHasHelp.

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type commandHelp struct {
	example string // used when the command sets no Example itself
	exit    string // the EXIT STATUS section
}

const (
	exitUsageLine       = "  2    usage error (unknown command, bad flag or argument)"
	exitInterruptedLine = "  130  interrupted (Ctrl-C); what was measured so far is kept"
	exitPlain           = "  0    success\n  1    failure (the first error is printed)\n" + exitUsageLine
)

var help = map[string]commandHelp{
	"benchseal": {exit: exitStatusHelpBody},
	"run": {exit: `  0    every step measured and answered (a step's failures above 1 % are warnings)
  1    a step failed every measured request, a step's closed loop still
       stalled after 3 attempts (verify would fail it), a target stopped
       (every warm-up failed, or its launched server exited), or --seal
       failed (the run is kept; the command that seals it is printed)
  2    usage error (a bad flag or argument, or a target that does not serve --model)
` + exitInterruptedLine},
	"replay": {exit: `  0    every figure agrees within the tolerance
  1    a figure differs beyond the tolerance, moved on other hardware (not
       comparable), or the replay failed (a --launch server did not start)
  2    usage error (a bad flag or argument; with --launch, a value redacted
       when sealed and not given with --env)
` + exitInterruptedLine},
	"verify": {exit: `  0    no check failed (WARN and SKIP lines may remain)
  1    a check failed, or the bundle could not be read
` + exitUsageLine},
	"seal": {example: `  benchseal seal runs/qwen3-asr -o qwen3-asr.tar.zst --key team.key
  benchseal seal runs/interrupted -o partial.tar.zst --allow-incomplete`, exit: `  0    sealed; the bundle's SHA-256 and key fingerprint are on stdout
  1    failure; nothing is written
` + exitUsageLine + `
  130  interrupted; nothing is written`},
	"demo": {example: "  benchseal demo --out /tmp/benchseal-demo",
		exit: `  0    the demo ran, sealed, verified and reported
  1    a step of the demo failed
` + exitUsageLine + "\n  130  interrupted"},
	"sim": {exit: `  0    shut down by Ctrl-C or SIGTERM
  1    could not listen or serve
` + exitUsageLine},
	"keygen": {example: `  BENCHSEAL_PASSWORD=... benchseal keygen --out team
  benchseal seal runs/qwen3-asr -o qwen3-asr.tar.zst --key team.key`, exit: exitPlain},
	"normalize": {example: `  echo 'Mr. Smith paid $20' | benchseal normalize --normalizer whisper-en`, exit: exitPlain},
	"perturb":   {exit: exitPlain},
	"report": {example: `  benchseal report evidence.tar.zst --key benchseal.pub -o report/
  benchseal report runs/qwen3-asr --format html -o report-html/`, exit: exitPlain},
	"score": {example: `  benchseal score --ref refs.trn --hyp hyps.trn --normalizer whisper-en
  benchseal score runs/qwen3-asr --aligner sclite`, exit: exitPlain},
	"version": {example: "  benchseal version --json", exit: exitPlain},
	"wavinfo": {example: "  benchseal wavinfo clips/*.wav --json", exit: exitPlain},
	"import":  {exit: exitPlain},
	"export": {example: `  benchseal export evidence.tar.zst --key team.pub --format parquet -o flat/`,
		exit: `  0    exported: requests and claims tables written
  1    the bundle does not verify (nothing written), cannot be read, or -o is not empty
` + exitUsageLine},
	"compare": {exit: `  0    compared (whatever the verdicts; figures beyond the tolerance are counted on stderr)
  1    a bundle does not verify or cannot be read, or the protocols differ (each difference named)
  2    usage error (a bad flag or argument, a --pair naming a target a bundle lacks, no target in common)`},
}

const exitStatusHelpBody = `  0    success (verify: no check failed; replay: the figures agree)
  1    failure (an operation failed, a check failed, a run measured nothing)
` + exitUsageLine + `
  130  interrupted (Ctrl-C); what was measured so far is kept`

// exitStatusOf is the EXIT STATUS section of c's help.
func exitStatusOf(c *cobra.Command) string {
	h, ok := help[c.Name()]
	if !ok || h.exit == "" {
		h.exit = exitPlain
	}
	return "EXIT STATUS\n" + h.exit
}

// applyHelp gives every command the template with its EXIT STATUS, an
// example where it has none, and "did you mean" for mistyped flags.
func applyHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("exitStatus", exitStatusOf)
	root.SetHelpTemplate(root.HelpTemplate() + "\n{{exitStatus .}}\n")
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if h, ok := help[c.Name()]; ok && c.Example == "" {
			c.Example = h.example
		}
		c.SetFlagErrorFunc(flagError)
	}
}

// flagError makes pflag's errors usage errors and, for an unknown flag,
// suggests the nearest one the command has.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	name := ""
	if rest, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = rest
	}
	if name == "" {
		return &usageError{err}
	}
	best, bestD := "", 3
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return &usageError{err}
	}
	return withHint(&usageError{err}, "did you mean --%s?", best)
}

// suggestCommand words "did you mean" for a mistyped command.
func suggestCommand(root *cobra.Command, arg string) string {
	if s := root.SuggestionsFor(arg); len(s) > 0 {
		return fmt.Sprintf("did you mean %s?", strings.Join(s, " or "))
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b (flag names: short).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
