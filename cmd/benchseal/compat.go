package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// compatFlag adds --compat to a command.
func compatFlag(cmd *cobra.Command, p *string, what string) {
	cmd.Flags().StringVar(p, "compat", "", "also "+what+" under a peer tool's definitions: seedtts (SGLang-Omni's benchmark_asr_seedtts.py)")
}

func checkCompat(name string) error {
	if name != "" && !slices.Contains(claims.Compats, name) {
		return usageErrorf("--compat %q: want %s", name, strings.Join(claims.Compats, ", "))
	}
	return nil
}

// compatPreset gives a plan the seed client's schedule: one warm-up pass
// over the corpus before each level's first repeat, one measured pass in
// corpus order per repeat, unless --warmup, --requests or --passes say
// otherwise. Perturbation stays on unless --no-perturb.
func compatPreset(p *bench.Plan, f *runFlags) {
	if f.requests == "" && f.passes == 0 {
		p.Requests, p.Passes = []int{len(p.Corpus)}, 1
	}
	if f.warmup < 0 {
		p.Warmup = []int{len(p.Corpus)}
	}
	p.WarmupOnce = true
}

// loadRunRecords reads run.json and every records file of a run directory
// or a bundle (verify.OpenRun; the signature is not checked).
func loadRunRecords(src string) (schemas.Run, []schemas.Record, error) {
	r, err := verify.OpenRun(context.Background(), src, verify.OpenOptions{Unsigned: true})
	var (
		re *verify.RefusedError
		rd *verify.ReadError
		nr *verify.NoRunError
	)
	switch {
	case errors.As(err, &re):
		return schemas.Run{}, nil, fmt.Errorf("--compat: %s: %w", src, re.Err)
	case errors.As(err, &rd):
		return schemas.Run{}, nil, fmt.Errorf("--compat: %s: %w", src, rd.Err)
	case errors.As(err, &nr):
		return schemas.Run{}, nil, fmt.Errorf("--compat: %w", err)
	case err != nil && r == nil:
		return schemas.Run{}, nil, fmt.Errorf("--compat: %w", err)
	case err != nil:
		return r.Run, nil, err
	}
	return r.Run, r.Records, nil
}

// printCompat prints the figures of a run directory or bundle under the
// peer's definitions on stdout.
func printCompat(e *env, src, name string, asJSON bool) error {
	run, recs, err := loadRunRecords(src)
	if err != nil {
		return err
	}
	return writeCompat(e.stdout, name, run, recs, asJSON)
}

// writeCompat prints the run's figures under the peer's definitions: the
// seed client's own table (benchmark_asr_seedtts.py, _print_table: its
// "corpus WER" column is the max over repeats), one row per target and
// level, then the residual no mode removes; or the figures as JSON.
func writeCompat(w io.Writer, name string, run schemas.Run, recs []schemas.Record, asJSON bool) error {
	c, err := claims.SeedTTSClaims(run, recs)
	if err != nil {
		return fmt.Errorf("--compat %s: %w", name, err)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	return compatTable(w, c)
}

func compatTable(w io.Writer, c claims.SeedTTSCompat) error {
	var b strings.Builder
	b.WriteString("\nFigures under the seed client's definitions (--compat seedtts: mean over repeats, HTTP 200 with empty text scored as deletions, audio = (file size - 44) / byte rate, RTFx to 3 decimals):\n\n")
	b.WriteString("| target | conc | valid reps (lat/RTF/WER) | evaluated/requests | wall(s) mean | req/s mean | req/s best | RTFx mean | lat mean(s) | lat p50(s) | lat p95(s) | RTF mean | RTF p95 | corpus WER | max WER |\n")
	b.WriteString("|---" + strings.Repeat("|---:", 14) + "|\n")
	f := func(p *float64, digits int) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.*f", digits, *p)
	}
	for _, t := range c.Targets {
		for _, lv := range t.Levels {
			s := lv.Stats
			fmt.Fprintf(&b, "| %s | %d | %d/%d / %d/%d / %d/%d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				visible(t.Target), lv.Concurrency, s["latency_mean_s"].N, lv.Repeats, s["rtf_mean"].N, lv.Repeats, s["corpus_wer"].N, lv.Repeats,
				lv.Evaluated, lv.Total, f(s["wall_clock_s"].Mean, 3), f(s["throughput_samples_per_s"].Mean, 3), f(s["throughput_samples_per_s"].Max, 3),
				f(s["rtfx"].Mean, 3), f(s["latency_mean_s"].Mean, 3), f(s["latency_median_s"].Mean, 3), f(s["latency_p95_s"].Mean, 3),
				f(s["rtf_mean"].Mean, 4), f(s["rtf_p95"].Mean, 4), f(s["corpus_wer"].Max, 4), f(s["per_sample_wer_max"].Max, 4))
		}
	}
	fmt.Fprintf(&b, "\nResidual: %s.\n", c.Residual)
	_, err := io.WriteString(w, b.String())
	return err
}
