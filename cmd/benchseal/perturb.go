package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
			in := sha256.Sum256(w.Bytes)
			if bySeed {
				if index, err = (perturb.Plan{Seed: seed}).Index(in, w.Samples(), 0); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
			}
			v, err := w.Variant(index)
			if err != nil {
				return wavHint(err)
			}
			if err := writeNewFile(out, force, w.Splice(v).WriteTo); err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					SampleIndex  int64   `json:"sample_index"`
					ByteOffset   int64   `json:"byte_offset"`
					OldValue     float64 `json:"old_value"`
					NewValue     float64 `json:"new_value"`
					InputSHA256  string  `json:"input_sha256"`
					OutputSHA256 string  `json:"output_sha256"`
				}{v.SampleIndex, v.ByteOffset, v.OldValue, v.NewValue, hex.EncodeToString(in[:]), hex.EncodeToString(v.SHA256[:])})
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

// writeNewFile writes path through a temporary file in its directory, so
// that path appears complete or not at all, and only replaces an existing
// file when force is set.
func writeNewFile(path string, force bool, write func(io.Writer) (int64, error)) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = write(tmp); err != nil {
		return fmt.Errorf("%s: write: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", path, err)
	}
	if force {
		if err = os.Rename(tmp.Name(), path); err != nil {
			return fmt.Errorf("%s: %w", path, errors.Unwrap(err))
		}
		return nil
	}
	// A hard link fails if path exists, even when it appeared after the
	// check above: no race replaces a file.
	if err = newfile.Publish(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return perturbExists(path)
		}
		if le := (*os.LinkError)(nil); errors.As(err, &le) {
			return fmt.Errorf("%s: %w", path, le.Err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	os.Remove(tmp.Name())
	return nil
}
