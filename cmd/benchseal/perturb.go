package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/perturb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() { register(newPerturbCmd) }

func newPerturbCmd(e *env) *cobra.Command {
	var (
		index  int64
		seed   uint64
		out    string
		force  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "perturb IN.wav (--index N | --seed S) -o OUT.wav",
		Short: "write a variant of a WAV file: one sample moved by one LSB",
		Long: `perturb writes the variant benchseal would send for one sample of IN.wav: a
copy in which exactly one byte differs, the least significant valid bit of
one sample (interleaved index: frame*channels + channel). --index picks the
sample; --seed picks it as a run with that seed picks its first variant of
the clip. OUT.wav appears only if everything succeeded, and an existing
OUT.wav is never replaced without --force.`,
		Example: `  benchseal perturb clip.wav --index 1000 -o variant.wav
  benchseal perturb clip.wav --seed 42 -o variant.wav --json`,
		Args: exactArgs(1, "one WAV file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			byIndex, bySeed := cmd.Flags().Changed("index"), cmd.Flags().Changed("seed")
			switch {
			case byIndex && bySeed:
				return usageErrorf("--index and --seed are mutually exclusive")
			case !byIndex && !bySeed:
				return usageErrorf("perturb needs --index N or --seed S")
			case out == "":
				return usageErrorf("perturb needs -o OUT.wav")
			}
			if !force {
				if _, err := os.Lstat(out); err == nil {
					return perturbExists(out)
				}
			}
			w, err := perturb.ReadFile(args[0])
			if err != nil {
				return wavHint(err)
			}
			var v perturb.Variant
			var se *perturb.SeedError
			if bySeed {
				v, err = w.SeededVariant(seed)
			} else {
				v, err = w.Variant(index)
			}
			if errors.As(err, &se) {
				return err
			} else if err != nil {
				return wavHint(err)
			}
			if err := newfile.WriteAtomic(out, force, w.Splice(v).WriteTo); errors.Is(err, fs.ErrExist) {
				return perturbExists(out)
			} else if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, w.Change(v))
			}
			infof(e.stderr, "wrote %s: sample %d (byte %d) %v -> %v", out, v.SampleIndex, v.ByteOffset, v.OldValue, v.NewValue)
			return nil
		},
	}
	f := cmd.Flags()
	f.Int64Var(&index, "index", 0, "interleaved sample index to change (frame*channels + channel)")
	f.Uint64Var(&seed, "seed", 0, "pick the sample from the seeded plan, as a run with this seed would")
	// --output was this flag's name before every command spelled it --out.
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "output" {
			name = "out"
		}
		return pflag.NormalizedName(name)
	})
	f.StringVarP(&out, "out", "o", "", "the variant file to write (must not exist unless --force)")
	f.BoolVar(&force, "force", false, "replace OUT.wav if it exists")
	f.BoolVar(&asJSON, "json", false, "print what changed as JSON")
	return cmd
}

func perturbExists(path string) error {
	return withHint(fmt.Errorf("%s: already exists, refusing to overwrite it", path), "pass --force to replace it, or choose another -o")
}

// wavHint attaches the fix a user most likely needs for a WAV the perturb
// package refused.
func wavHint(err error) error {
	var ce *perturb.CompressedError
	var ie *perturb.IndexError
	switch {
	case errors.As(err, &ce):
		return withHint(err, "convert it to PCM first, e.g. sox IN -e signed-integer -b 16 OUT.wav")
	case errors.Is(err, perturb.ErrBigEndian):
		return withHint(err, "convert it to little-endian RIFF first, e.g. sox IN -L OUT.wav")
	case errors.Is(err, perturb.ErrDataPastEnd):
		return withHint(err, "the file was written as a stream or cut short; rewrite its header, e.g. sox --ignore-length IN OUT.wav")
	case errors.As(err, &ie):
		return withHint(err, "the clip has %d samples: choose --index from 0 to %d", ie.Samples, ie.Samples-1)
	case errors.Is(err, perturb.ErrNotFinite):
		return withHint(err, "choose another --index or --seed")
	}
	return err
}
