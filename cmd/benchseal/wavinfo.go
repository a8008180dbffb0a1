package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/benchseal/benchseal/perturb"
	"github.com/spf13/cobra"
)

func init() { register(newWavinfoCmd) }

func newWavinfoCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "wavinfo IN.wav",
		Short: "describe a WAV file as benchseal reads it",
		Long: `wavinfo prints what benchseal finds in a WAV file: the sample format,
channels, sample rate, container and valid bits, frames, duration, where the
samples are, and every RIFF chunk. It fails, saying why, on a file benchseal
cannot perturb.`,
		Args: exactArgs(1, "one WAV file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := perturb.ReadFile(args[0])
			if err != nil {
				return wavHint(err)
			}
			info := w.Info(args[0])
			if asJSON {
				return writeJSON(e.stdout, info)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
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
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
