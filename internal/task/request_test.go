package task_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
)

// TestWAVBase64: the base64 view's variants are the WAV's (the same
// positions and SHA-256s), its splice is the base64 of the perturbed WAV,
// and the input unchanged is the base64 of the file.
func TestWAVBase64(t *testing.T) {
	b := testkit.NoiseWAV(0.1, 5)
	in, err := task.WAVBase64("a.wav", b)
	if err != nil {
		t.Fatal(err)
	}
	asr, _ := task.ASR.Input("a.wav", b)
	if in.Positions() != asr.Positions() || in.Sum() != asr.Sum() {
		t.Fatal("the base64 view's positions or sum are not the WAV's")
	}
	for _, i := range []int64{0, 1, 2, 3, 500, in.Positions() - 1} {
		v, err := in.Variant(i)
		if err != nil {
			t.Fatal(err)
		}
		if va, _ := asr.Variant(i); va != v {
			t.Fatalf("position %d: variant %+v, the WAV's is %+v", i, v, va)
		}
		var wav, sent bytes.Buffer
		asr.Splice(v).WriteTo(&wav)
		in.Splice(v).WriteTo(&sent)
		if sent.String() != base64.StdEncoding.EncodeToString(wav.Bytes()) {
			t.Fatalf("position %d: the text sent is not the base64 of the variant", i)
		}
	}
	whole, _ := io.ReadAll(task.Whole(in, b).Reader())
	if string(whole) != base64.StdEncoding.EncodeToString(b) {
		t.Error("Whole is not the file's base64")
	}
	if raw, _ := io.ReadAll(task.Whole(asr, b).Reader()); !bytes.Equal(raw, b) {
		t.Error("ASR's Whole is not the file")
	}
}
