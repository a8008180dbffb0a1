package sim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// makeWAV writes a 16-bit PCM mono WAV of the given duration, with a LIST
// chunk before the data so that the chunk walk is exercised.
func makeWAV(t testing.TB, rate int, seconds float64, seed int16) []byte {
	t.Helper()
	frames := int(float64(rate) * seconds)
	var data bytes.Buffer
	for i := 0; i < frames; i++ {
		binary.Write(&data, binary.LittleEndian, int16(i*7)+seed)
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+16+8+3+1+8+data.Len()))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, uint32(16))
	binary.Write(&b, binary.LittleEndian, uint16(1))      // PCM
	binary.Write(&b, binary.LittleEndian, uint16(1))      // mono
	binary.Write(&b, binary.LittleEndian, uint32(rate))   // sample rate
	binary.Write(&b, binary.LittleEndian, uint32(rate*2)) // byte rate
	binary.Write(&b, binary.LittleEndian, uint16(2))      // block align
	binary.Write(&b, binary.LittleEndian, uint16(16))     // bits
	b.WriteString("LIST")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	b.WriteString("abc\x00") // odd size + pad byte
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}

func TestParseWAV(t *testing.T) {
	w := makeWAV(t, 16000, 1.5, 0)
	info, err := parseWAV(w)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Seconds(); got != 1.5 {
		t.Errorf("seconds = %v, want 1.5", got)
	}
	// A streamed WAV declares more data than it holds: cut to what is there.
	trunc := append([]byte(nil), w[:len(w)-1001]...)
	info, err = parseWAV(trunc)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(24000*2 - 1001 - 1); info.DataSize != want {
		t.Errorf("truncated data size = %d, want %d", info.DataSize, want)
	}
}

func TestParseWAVRejects(t *testing.T) {
	good := makeWAV(t, 16000, 0.1, 0)
	zeroRate := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(zeroRate[24:], 0)
	for name, b := range map[string][]byte{
		"empty":      nil,
		"not riff":   []byte("RIFX0000WAVEfmt "),
		"no data":    good[:36],
		"zero rate":  zeroRate,
		"short fmt":  good[:30],
		"data first": append([]byte("RIFF\x10\x00\x00\x00WAVEdata\x00\x00\x00\x00"), good[12:]...),
	} {
		_, err := parseWAV(b)
		var we *WAVError
		if !errors.As(err, &we) {
			t.Errorf("%s: err = %v, want *WAVError", name, err)
		}
	}
}

func FuzzParseWAV(f *testing.F) {
	seeds := [][]byte{makeWAV(f, 8000, 0.01, 0), makeWAV(f, 44100, 0.002, 3)}
	if len(seeds) == 0 {
		f.Fatal("no seeds")
	}
	for _, s := range seeds {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := parseWAV(b)
		if err != nil {
			return
		}
		if info.DataSize < 0 || info.DataSize > int64(len(b)) || info.BlockAlign <= 0 || info.SampleRate <= 0 {
			t.Fatalf("accepted with impossible info %+v for %d bytes", info, len(b))
		}
		if s := info.Seconds(); s < 0 {
			t.Fatalf("negative seconds %v", s)
		}
	})
}
