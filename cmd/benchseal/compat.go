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
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/task/seedtts"
	"github.com/benchseal/benchseal/internal/task/ttscompat"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// compatFlag adds --compat to a command.
func compatFlag(cmd *cobra.Command, p *string, what string) {
	cmd.Flags().StringVar(p, "compat", "", "also "+what+" under a peer tool's definitions: seedtts (SGLang-Omni's benchmark_asr_seedtts.py); for a tts run vllm-omni-tts or sglang-omni-tts (the engines' TTS benchmark clients' success counting, a 200 with silent audio counted; no schedule of theirs)")
}

// compatSchedules says the peer's view runs the peer's schedule (seedtts);
// the tts peers' views change none.
func compatSchedules(name string) bool { return name == seedtts.CompatSeedTTS }

func checkCompat(name string) error {
	if name != "" && !slices.Contains(seedtts.Compats, name) && !slices.Contains(ttscompat.Names, name) {
		return usageErrorf("--compat %q: want %s", name, strings.Join(append(slices.Clone(seedtts.Compats), ttscompat.Names...), ", "))
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
	if slices.Contains(ttscompat.Names, name) {
		v, err := ttscompat.Compute(name, run, recs)
		if err != nil {
			return fmt.Errorf("--compat %s: %w", name, err)
		}
		return emitCompat(w, v, asJSON)
	}
	if tn := task.NameOf(&run); tn != seedtts.Task {
		return fmt.Errorf("--compat %s is the %s seed client's, not a %s run's; for a %s run: %s", name, seedtts.Task, tn, ttscompat.Task, strings.Join(ttscompat.Names, ", "))
	}
	c, err := seedtts.SeedTTSClaims(run, recs)
	if err != nil {
		return fmt.Errorf("--compat %s: %w", name, err)
	}
	return emitCompat(w, c, asJSON)
}

// emitCompat writes a peer's figures as indented JSON or as its table.
func emitCompat(w io.Writer, v interface {
	WriteTable(io.Writer, func(string) string) error
}, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return v.WriteTable(w, visible)
}
