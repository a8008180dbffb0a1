package perturb_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/benchseal/benchseal/perturb"
)

// A 16-bit mono WAV with the samples 32767, -32768, 1, -1.
func exampleWAV() []byte {
	le := binary.LittleEndian
	b := []byte("RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	b = le.AppendUint16(b, 1)     // PCM
	b = le.AppendUint16(b, 1)     // mono
	b = le.AppendUint32(b, 8000)  // Hz
	b = le.AppendUint32(b, 16000) // bytes per second
	b = le.AppendUint16(b, 2)     // block align
	b = le.AppendUint16(b, 16)    // bits
	b = append(b, "data\x08\x00\x00\x00"...)
	for _, s := range []int16{32767, -32768, 1, -1} {
		b = le.AppendUint16(b, uint16(s))
	}
	return b
}

func Example() {
	w, err := perturb.Parse("clip.wav", exampleWAV())
	if err != nil {
		panic(err)
	}
	clip := sha256.Sum256(w.Bytes)
	plan := perturb.Plan{Seed: 7}
	for n := range w.Samples() {
		i, err := plan.Index(clip, w.Samples(), n)
		if err != nil {
			panic(err)
		}
		v, err := w.Variant(i)
		if err != nil {
			panic(err)
		}
		// The request body: the clip's own bytes around the one new byte.
		body := w.Splice(v)
		sent, _ := io.Copy(io.Discard, body.Reader())
		fmt.Printf("variant %d: sample %d, byte %d: %v -> %v, %d bytes\n", n, i, v.ByteOffset, v.OldValue, v.NewValue, sent)
	}
	_, err = w.Variant(4)
	fmt.Println(err)
	// Output:
	// variant 0: sample 0, byte 44: 32767 -> 32766, 52 bytes
	// variant 1: sample 2, byte 48: 1 -> 0, 52 bytes
	// variant 2: sample 1, byte 46: -32768 -> -32767, 52 bytes
	// variant 3: sample 3, byte 50: -1 -> -2, 52 bytes
	// clip.wav: sample index 4 out of range [0, 4)
}
