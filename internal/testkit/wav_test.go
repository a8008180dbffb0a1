package testkit

import (
	"bytes"
	"slices"
	"testing"

	"github.com/go-audio/wav"
)

// What WAV writes is a WAV another decoder reads back sample for sample.
func TestWAVDecodes(t *testing.T) {
	want := Ramp(37, 800)
	d := wav.NewDecoder(bytes.NewReader(PCM16(16000, want)))
	buf, err := d.FullPCMBuffer()
	if err != nil {
		t.Fatal(err)
	}
	if d.SampleRate != 16000 || d.NumChans != 1 || d.BitDepth != 16 || len(buf.Data) != len(want) {
		t.Fatalf("rate %d, channels %d, bits %d, %d samples", d.SampleRate, d.NumChans, d.BitDepth, len(buf.Data))
	}
	for i, v := range buf.Data {
		if int16(v) != want[i] {
			t.Fatalf("sample %d = %d, want %d", i, v, want[i])
		}
	}
	if !slices.Equal(Noise(3, 10), Noise(3, 10)) || slices.Equal(Noise(3, 10), Noise(4, 10)) {
		t.Error("Noise is not a function of its seed")
	}
	if !Key(t, "a").Equal(Key(t, "a")) || Key(t, "a").Equal(Key(t, "b")) {
		t.Error("Key is not a function of its name")
	}
}
