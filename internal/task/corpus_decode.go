package task

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/hajimehoshi/go-mp3"
	"github.com/mewkiz/flac"
)

// Source formats a clip is decoded from (Clip.SourceFormat, run.json's
// corpus source_format). A WAV is sent as it is and has none.
const (
	SourceFLAC = "flac"
	SourceMP3  = "mp3"
)

// DecoderMP3 and DecoderFLAC name the decoders, as docs/protocol.md does.
const (
	DecoderFLAC = "github.com/mewkiz/flac"
	DecoderMP3  = "github.com/hajimehoshi/go-mp3"
)

// decodeSource turns a clip's source bytes into the WAV benchseal sends:
// a WAV is returned as it is (format ""); a FLAC is decoded losslessly to
// PCM of its own depth, rate and channels (decodeFLACWAV); an MP3 is
// decoded once to 16-bit PCM (decodeMP3WAV). Any other format is a
// *NotWAVError.
func decodeSource(name string, b []byte) (wav []byte, format string, err error) {
	if bytes.HasPrefix(b, []byte("RIFF")) || bytes.HasPrefix(b, []byte("RIFX")) || bytes.HasPrefix(b, []byte("RF64")) {
		return b, "", nil
	}
	switch f, ext := sniffAudio(b); f {
	case "FLAC":
		wav, err = decodeFLACWAV(b)
		return wav, SourceFLAC, err
	case "MP3":
		wav, err = decodeMP3WAV(b)
		return wav, SourceMP3, err
	case "":
		return b, "", nil // perturb.Parse names what is wrong
	default:
		return nil, "", &NotWAVError{File: name, Format: f, Ext: ext}
	}
}

// pcmWAV is a canonical WAV (RIFF, a 16-byte PCM fmt chunk, data) of
// interleaved little-endian samples.
func pcmWAV(rate, channels, bits int, data []byte) []byte {
	b := make([]byte, 0, 44+len(data)+1)
	le := binary.LittleEndian
	b = append(b, "RIFF"...)
	size := 36 + len(data) + len(data)%2
	b = le.AppendUint32(b, uint32(size))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1) // PCM
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	block := channels * bits / 8
	b = le.AppendUint32(b, uint32(rate*block))
	b = le.AppendUint16(b, uint16(block))
	b = le.AppendUint16(b, uint16(bits))
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0) // the RIFF pad byte
	}
	return b
}

// decodeFLACWAV decodes a FLAC file with github.com/mewkiz/flac into a WAV
// of the same samples: the same rate, channels and depth (8, 16, 24 or 32
// bits; other depths are refused rather than rescaled), every frame's CRC
// checked and, when STREAMINFO carries one, the decoded samples' MD5 and
// count. Lossless: the WAV's samples are the FLAC's, bit for bit.
func decodeFLACWAV(b []byte) ([]byte, error) {
	quietFLAC.Do(func() { log.SetOutput(&dropFLACNotices{log.Writer()}) })
	s, err := flac.New(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("flac: %w", err)
	}
	info := s.Info
	ch, bps := int(info.NChannels), int(info.BitsPerSample)
	if ch < 1 || info.SampleRate < 1 {
		return nil, fmt.Errorf("flac: %d channels at %d Hz", ch, info.SampleRate)
	}
	if bps%8 != 0 || bps < 8 || bps > 32 {
		return nil, fmt.Errorf("flac: %d bits per sample: only 8, 16, 24 and 32-bit FLAC is decoded (a WAV of another depth would not be the same samples)", bps)
	}
	sum := md5.New()
	var pcm []byte
	if info.NSamples > 0 {
		pcm = make([]byte, 0, int(info.NSamples)*ch*bps/8)
	}
	var frames uint64
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("flac: frame %d: %w", frames, err)
		}
		if len(f.Subframes) != ch {
			return nil, fmt.Errorf("flac: a frame of %d channels in a %d-channel stream", len(f.Subframes), ch)
		}
		f.Hash(sum)
		n := len(f.Subframes[0].Samples)
		for i := 0; i < n; i++ {
			for _, sf := range f.Subframes {
				v := sf.Samples[i]
				switch bps {
				case 8:
					pcm = append(pcm, byte(v+128)) // WAV's 8-bit samples are unsigned
				case 16:
					pcm = binary.LittleEndian.AppendUint16(pcm, uint16(int16(v)))
				case 24:
					pcm = append(pcm, byte(v), byte(v>>8), byte(v>>16))
				case 32:
					pcm = binary.LittleEndian.AppendUint32(pcm, uint32(v))
				}
			}
		}
		frames += uint64(n)
	}
	if frames == 0 {
		return nil, errors.New("flac: no samples")
	}
	if info.NSamples != 0 && frames != info.NSamples {
		return nil, fmt.Errorf("flac: %d samples decoded, STREAMINFO says %d", frames, info.NSamples)
	}
	if info.MD5sum != [16]byte{} && !bytes.Equal(sum.Sum(nil), info.MD5sum[:]) {
		return nil, errors.New("flac: the decoded samples' MD5 is not STREAMINFO's")
	}
	return pcmWAV(int(info.SampleRate), ch, bps, pcm), nil
}

// decodeMP3WAV decodes an MP3 file once with github.com/hajimehoshi/go-mp3
// into a 16-bit WAV at the file's rate. go-mp3 always yields two
// channels; when every frame's two samples are equal (a mono MP3, as
// Common Voice's are, which the decoder duplicates) the WAV is mono, the
// same samples. MP3 is lossy: the WAV is the decoder's output, which is
// what is sent, sealed and perturbed, and the MP3's SHA-256 is sealed
// beside it (Clip.SourceSHA256).
func decodeMP3WAV(b []byte) ([]byte, error) {
	d, err := mp3.NewDecoder(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("mp3: %w", err)
	}
	pcm, err := io.ReadAll(d)
	if err != nil {
		return nil, fmt.Errorf("mp3: %w", err)
	}
	pcm = pcm[:len(pcm)/4*4]
	if len(pcm) == 0 {
		return nil, errors.New("mp3: no samples")
	}
	mono := true
	for i := 0; i < len(pcm); i += 4 {
		if pcm[i] != pcm[i+2] || pcm[i+1] != pcm[i+3] {
			mono = false
			break
		}
	}
	if !mono {
		return pcmWAV(d.SampleRate(), 2, 16, pcm), nil
	}
	m := make([]byte, 0, len(pcm)/2)
	for i := 0; i < len(pcm); i += 4 {
		m = append(m, pcm[i], pcm[i+1])
	}
	return pcmWAV(d.SampleRate(), 1, 16, m), nil
}

// hexSum is the SHA-256 of b in hex.
func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
