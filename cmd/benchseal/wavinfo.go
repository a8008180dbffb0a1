package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/benchseal/benchseal/perturb"
	"github.com/spf13/cobra"
)

func init() { register(newWavinfoCmd) }

func newWavinfoCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "wavinfo IN.wav...",
		Short: "describe WAV files as benchseal reads them",
		Long: `wavinfo prints what benchseal finds in each WAV file: the sample format,
channels, sample rate, container and valid bits, frames, duration, where the
samples are, and every RIFF chunk. It fails, saying why, on a file benchseal
cannot perturb.

One file is described key by key; several get one table row each (file,
format, channels, sample rate, bits, frames, seconds, sha256). --json prints
one JSON object per file, one per line, with every field and chunk. A file
that cannot be read is named on stderr with its reason, the others are
still described, and the exit status is 1.`,
		Args: minArgs(1, "one or more WAV files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var infos []perturb.Info
			failed := 0
			for _, name := range args {
				w, err := perturb.ReadFile(name)
				if err != nil {
					if len(args) == 1 {
						return wavHint(err)
					}
					printError(e.stderr, wavHint(err), "")
					failed++
					continue
				}
				infos = append(infos, w.Info(name))
			}
			var err error
			switch {
			case asJSON:
				err = writeJSONLines(e.stdout, infos)
			case len(args) == 1:
				err = writeWavDetail(e.stdout, infos[0])
			default:
				err = writeWavRows(e.stdout, infos)
			}
			if err != nil {
				return err
			}
			if failed > 0 {
				return fmt.Errorf("wavinfo: %d of %d WAV files could not be read (each named above)", failed, len(args))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per file, one per line")
	return cmd
}

// writeJSONLines writes each of vs as one line of JSON.
func writeJSONLines[T any](w io.Writer, vs []T) error {
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// writeWavDetail describes one file key by key, every chunk included.
func writeWavDetail(w io.Writer, info perturb.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	row("file", info.File)
	row("sha256", info.SHA256)
	row("format", fmt.Sprintf("%s (tag 0x%04X %s)", info.Format, info.FormatTag, info.FormatName))
	row("channels", info.Channels)
	row("sample_rate", info.SampleRate)
	row("bits", info.Bits)
	row("valid_bits", info.ValidBits)
	row("frames", info.Frames)
	row("seconds", strconv.FormatFloat(info.Seconds, 'f', -1, 64))
	row("data_offset", info.DataOffset)
	row("data_size", info.DataSize)
	for _, c := range info.Chunks {
		row("chunk", fmt.Sprintf("%q offset %d size %d", c.ID, c.Offset, c.Size))
	}
	return tw.Flush()
}

// writeWavRows describes several files, one table row each.
func writeWavRows(w io.Writer, infos []perturb.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\tchannels\tsample_rate\tbits\tframes\tseconds\tsha256")
	for _, i := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", i.File, i.Format, i.Channels, i.SampleRate, i.Bits, i.Frames,
			strconv.FormatFloat(i.Seconds, 'f', -1, 64), i.SHA256)
	}
	return tw.Flush()
}
