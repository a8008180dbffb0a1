package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/spf13/cobra"
)

func init() { register(newNormalizeCmd) }

func newNormalizeCmd(e *env) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "normalize --normalizer NAME < text",
		Short: "show what a scoring normalizer does to each line of stdin",
		Long: `normalize reads lines on stdin and writes each one on stdout as the named
normalizer leaves it, units separated by one space: exactly what 'benchseal
score' aligns. Normalizers: ` + strings.Join(score.Normalizers, ", ") + `.`,
		Args: exactArgs(0, "no arguments (text comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := score.Units(name, ""); err != nil {
				return &usageError{err}
			}
			err := score.NormalizeLines(name, e.stdin, e.stdout)
			var le *score.LineError
			if errors.As(err, &le) {
				return fmt.Errorf("normalize: stdin line %d: %w", le.Line, le.Err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&name, "normalizer", score.NormalizerWhisperEN, "normalizer: "+strings.Join(score.Normalizers, ", "))
	return cmd
}
