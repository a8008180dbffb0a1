package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/benchseal/benchseal/perturb"
	"github.com/spf13/cobra"
)

func init() { register(newWavinfoCmd) }

// wavInfo is wavinfo's JSON output; its keys are stable.
type wavInfo struct {
	File        string      `json:"file"`
	SHA256      string      `json:"sha256"`
	Format      string      `json:"format"` // "pcm" or "float"
	FormatTag   uint16      `json:"format_tag"`
	FormatName  string      `json:"format_name"`
	Channels    int         `json:"channels"`
	SampleRate  int         `json:"sample_rate"`
	Bits        int         `json:"bits"`
	ValidBits   int         `json:"valid_bits"`
	BlockAlign  int         `json:"block_align"`
	ChannelMask uint32      `json:"channel_mask"`
	Frames      int64       `json:"frames"`
	Samples     int64       `json:"samples"`
	Seconds     float64     `json:"seconds"`
	DataOffset  int64       `json:"data_offset"`
	DataSize    int64       `json:"data_size"`
	Chunks      []chunkInfo `json:"chunks"`
}

type chunkInfo struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

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
			sum := sha256.Sum256(w.Bytes)
			f := w.Format
			info := wavInfo{
				File: args[0], SHA256: hex.EncodeToString(sum[:]), Format: "pcm",
				FormatTag: f.Tag, FormatName: perturb.FormatName(f.Tag), Channels: f.Channels,
				SampleRate: f.SampleRate, Bits: f.BitsPerSample, ValidBits: f.ValidBits,
				BlockAlign: f.BlockAlign, ChannelMask: f.ChannelMask, Frames: w.Frames(),
				Samples: w.Samples(), Seconds: w.Seconds(), DataOffset: w.DataOffset,
				DataSize: w.DataSize, Chunks: []chunkInfo{},
			}
			if f.Kind == perturb.KindFloat {
				info.Format = "float"
			}
			for _, c := range w.Chunks {
				info.Chunks = append(info.Chunks, chunkInfo{c.ID, c.Offset, c.Size})
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
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
