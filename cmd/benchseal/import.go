package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/benchseal/benchseal/internal/peer"
)

func init() { register(newImportCmd) }

func newImportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FORMAT FILE",
		Short: "check a result another benchmark tool published against its raw data",
		Long: `import reads a result that benchseal did not measure, recomputes every figure it
publishes from the tool's own raw per-request data with that tool's own definitions,
and prints, verify-style, each figure as HELD (it follows from the raw data),
BROKEN (it does not: arithmetic, counts, dropped samples, WER) or NOT OBSERVED
(the raw data it rests on is missing), then what the format cannot prove at all.
Exit status 1 when a figure is broken.

Formats:
  seedtts     SGLang-Omni's benchmarks/eval/benchmark_asr_seedtts.py: its result JSON
              (--output) and --raw DIR, the folder its --save-raw-dir wrote
              (conc{C}_rep{R}.jsonl)
  vllm-bench  the JSON of vllm bench serve --save-result (per-request figures
              need --save-detailed)`,
		Example: `  benchseal import seedtts asr_seedtts_results.json --raw raw/
  benchseal import vllm-bench openai-audio-infqps-concurrency8-Qwen3-ASR.json --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var asJSON bool
	var rawDir string
	seed := &cobra.Command{
		Use:   "seedtts RESULT.json --raw DIR",
		Short: "check a benchmark_asr_seedtts.py result against its raw per-sample files",
		Args:  exactArgs(1, "one result JSON"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw fs.FS
			if rawDir != "" {
				if st, err := os.Stat(rawDir); err != nil || !st.IsDir() {
					return usageErrorf("--raw %s: not a directory", rawDir)
				}
				raw = os.DirFS(rawDir)
			} else {
				warnf(e.stderr, "no --raw DIR: without the peer's raw files (--save-raw-dir) no figure can be checked")
			}
			return runImport(e, args[0], asJSON, func(r io.Reader) (*peer.Report, error) { return peer.SeedTTS(r, raw) })
		},
	}
	seed.Flags().StringVar(&rawDir, "raw", "", "the folder the peer's --save-raw-dir wrote (conc{C}_rep{R}.jsonl)")
	seed.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	vllm := &cobra.Command{
		Use:   "vllm-bench FILE",
		Short: "check the JSON of vllm bench serve --save-result",
		Args:  exactArgs(1, "one result JSON"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(e, args[0], asJSON, peer.VLLMBench)
		},
	}
	vllm.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	for _, c := range []*cobra.Command{seed, vllm} {
		c.SilenceErrors, c.SilenceUsage = true, true
		cmd.AddCommand(c)
	}
	return cmd
}

func runImport(e *env, src string, asJSON bool, check func(io.Reader) (*peer.Report, error)) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, unwrapPath(err))
	}
	defer f.Close()
	rep, err := check(f)
	if err != nil {
		return fmt.Errorf("importing %s: %w", src, err)
	}
	rep.Source = src
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(e.stdout, visible); err != nil {
		return err
	}
	if !rep.OK() {
		fmt.Fprintf(e.stderr, "benchseal: hint: %s: the published figures marked BROKEN are not what the raw data gives: do not trust those numbers\n", src)
		return &exitError{exitFailure}
	}
	return nil
}
