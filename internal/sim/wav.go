package sim

import (
	"encoding/binary"
	"fmt"
)

// WAVError reports audio the server cannot read; it answers 400 with it.
type WAVError struct {
	Reason string
}

func (e *WAVError) Error() string { return "unreadable WAV: " + e.Reason }

// wavInfo is what the latency model needs of a WAV: its duration. The walk is
// deliberately minimal (fmt and data chunks only) so that the server stays
// independent of how thoroughly a client validates its files.
type wavInfo struct {
	Channels   int
	SampleRate int
	BlockAlign int
	DataOffset int64 // where the data chunk's samples begin
	DataSize   int64 // bytes of whole frames actually present
}

// Seconds is frames / sample rate.
func (w wavInfo) Seconds() float64 {
	return float64(w.DataSize/int64(w.BlockAlign)) / float64(w.SampleRate)
}

// parseWAV walks the RIFF chunks of b up to the data chunk. A data chunk that
// declares more bytes than the file holds (streamed WAVs write 0xFFFFFFFF) is
// cut to what is there.
func parseWAV(b []byte) (wavInfo, error) {
	var info wavInfo
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return info, &WAVError{"not a RIFF/WAVE file"}
	}
	haveFmt := false
	off := int64(12)
	n := int64(len(b))
	for off+8 <= n {
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		body := off + 8
		switch id {
		case "fmt ":
			if size < 16 || body+16 > n {
				return info, &WAVError{"fmt chunk too short"}
			}
			info.Channels = int(binary.LittleEndian.Uint16(b[body+2:]))
			info.SampleRate = int(binary.LittleEndian.Uint32(b[body+4:]))
			info.BlockAlign = int(binary.LittleEndian.Uint16(b[body+12:]))
			if info.Channels == 0 || info.SampleRate == 0 || info.BlockAlign == 0 {
				return info, &WAVError{fmt.Sprintf("fmt chunk has %d channels, %d Hz, block align %d", info.Channels, info.SampleRate, info.BlockAlign)}
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return info, &WAVError{"data chunk before fmt chunk"}
			}
			avail := n - body
			if size < avail {
				avail = size
			}
			info.DataOffset = body
			info.DataSize = avail - avail%int64(info.BlockAlign)
			return info, nil
		}
		off = body + size + size&1
	}
	if !haveFmt {
		return info, &WAVError{"no fmt chunk"}
	}
	return info, &WAVError{"no data chunk"}
}
