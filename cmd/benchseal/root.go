package main

import (
	"strings"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/spf13/cobra"
)

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "benchseal",
		Short: "honest, sealed benchmarks of speech servers (speech to text, text to speech, audio chat)",
		Long: `benchseal drives OpenAI-compatible /v1/audio/transcriptions servers with a
closed-loop concurrency sweep in which every request sends a distinct 1-LSB
variant of its clip, records every request raw, and seals the evidence into a
signed, deterministic bundle that anyone can verify.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	for _, newCmd := range commands {
		c := newCmd(e)
		c.SilenceErrors, c.SilenceUsage = true, true
		root.AddCommand(c)
	}
	applyHelp(root)
	root.Version = fingerprint.Version()
	root.SetVersionTemplate("benchseal {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

// isCobraUsageError recognises the errors cobra itself returns for a command
// line it cannot parse; they carry no type, only their wording.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Argument validators that report usage errors (exit status 2).

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		err := usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := suggestCommand(cmd.Root(), args[0]); s != "" && !cmd.HasParent() {
			return withHint(err, "%s", s)
		}
		return err
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %s, got %d argument(s)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func rangeArgs(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageErrorf("%s takes %s, got %d argument(s)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s takes %s, got %d argument(s)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
