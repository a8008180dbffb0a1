package main

import (
	"bufio"
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
			sc := bufio.NewScanner(e.stdin)
			sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
			w := bufio.NewWriter(e.stdout)
			line := 0
			for sc.Scan() {
				line++
				out, err := score.Normalize(name, sc.Text())
				if err != nil {
					w.Flush()
					return fmt.Errorf("normalize: stdin line %d: %w", line, err)
				}
				w.WriteString(out)
				w.WriteByte('\n')
			}
			if err := sc.Err(); err != nil {
				w.Flush()
				return fmt.Errorf("normalize: stdin line %d: %w", line+1, err)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&name, "normalizer", score.NormalizerWhisperEN, "normalizer: "+strings.Join(score.Normalizers, ", "))
	return cmd
}
