package task

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"

	"github.com/mewkiz/flac"
)

// quietFLAC: mewkiz/flac v1.0.14 log.Printf's a notice ("The flac library
// test cases do not yet include any audio files with sample rate 24000
// ...") for every frame at 24 kHz or 176.4 kHz (frame/frame.go
// parseHeader), the engines' rate: about 6 lines per second of audio on
// the standard logger, i.e. the user's stderr. benchseal itself writes
// nothing through package log, so the first FLAC decoded wraps its
// writer to drop exactly those lines and pass every other through.
var quietFLAC sync.Once

type dropFLACNotices struct{ w io.Writer }

func (d *dropFLACNotices) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("The flac library test cases do not yet include")) {
		return len(p), nil
	}
	return d.w.Write(p)
}

// decodeFLAC decodes a FLAC body (vLLM-Omni's and SGLang-Omni's
// response_format flac, audio/flac) with github.com/mewkiz/flac, every
// frame's CRC checked and, when the stream carries one, the decoded
// samples' MD5 against its STREAMINFO: a body that fails either is
// undecodable, never measured. The samples are measured as s16le (a
// depth other than 16 bits is shifted to 16), so a FLAC and a WAV of one
// audio have the same facts and SHA-256.
func decodeFLAC(b []byte) Audio {
	quietFLAC.Do(func() { log.SetOutput(&dropFLACNotices{log.Writer()}) })
	bad := func(err error) Audio { return Audio{Undecodable: "flac: " + err.Error()} }
	s, err := flac.New(bytes.NewReader(b))
	if err != nil {
		return bad(err)
	}
	info := s.Info
	ch, bps := int(info.NChannels), int(info.BitsPerSample)
	if ch < 1 || info.SampleRate < 1 || bps < 4 || bps > 32 {
		return bad(fmt.Errorf("%d channels, %d Hz, %d bits", ch, info.SampleRate, bps))
	}
	sum := md5.New()
	var pcm []byte
	var frames uint64
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bad(err)
		}
		if len(f.Subframes) != ch {
			return bad(fmt.Errorf("a frame of %d channels in a %d-channel stream", len(f.Subframes), ch))
		}
		f.Hash(sum)
		n := len(f.Subframes[0].Samples)
		for i := 0; i < n; i++ {
			for _, sf := range f.Subframes {
				v := sf.Samples[i]
				if bps > 16 {
					v >>= bps - 16
				} else {
					v <<= 16 - bps
				}
				pcm = binary.LittleEndian.AppendUint16(pcm, uint16(int16(v)))
			}
		}
		frames += uint64(n)
	}
	if info.NSamples != 0 && frames != info.NSamples {
		return bad(fmt.Errorf("%d samples decoded, STREAMINFO says %d", frames, info.NSamples))
	}
	if info.MD5sum != [16]byte{} && !bytes.Equal(sum.Sum(nil), info.MD5sum[:]) {
		return bad(errors.New("the decoded samples' MD5 is not STREAMINFO's"))
	}
	return pcmFacts("flac", pcm, int(info.SampleRate), ch, "flac streaminfo")
}
