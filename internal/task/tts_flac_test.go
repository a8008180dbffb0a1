package task_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
)

// TestTTSDecodeFLAC decodes FLAC bodies made by a real encoder (sox): a
// 16-bit FLAC has the facts and SHA-256 of the WAV it was made from, a
// 24-bit one its duration at 16 bits, and a FLAC with one data byte
// flipped (its frame CRC or MD5 then fails) is undecodable, not
// measured.
func TestTTSDecodeFLAC(t *testing.T) {
	sox, err := exec.LookPath("sox")
	if err != nil {
		t.Skip("sox is not installed (Debian: apt-get install sox)")
	}
	dir := t.TempDir()
	s := tone(24000, 0.8, 0.5)
	wav := testkit.PCM16(24000, s)
	in := filepath.Join(dir, "a.wav")
	if err := os.WriteFile(in, wav, 0o644); err != nil {
		t.Fatal(err)
	}
	flacOf := func(name string, args ...string) []byte {
		out := filepath.Join(dir, name)
		if b, err := exec.Command(sox, append(append([]string{in}, args...), out)...).CombinedOutput(); err != nil {
			t.Fatalf("sox: %v %s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	f16 := flacOf("a.flac")
	text, _, _ := task.TTS.Decode(nil, "audio/flac", f16)
	a := facts(t, text)
	sum := sha256.Sum256(pcmBytes(s))
	if _, class, msg := task.TTS.Score(text); class != "" || a.Format != "flac" || a.SampleRate != 24000 || a.Channels != 1 || a.Seconds != 0.8 ||
		a.SHA256 != hex.EncodeToString(sum[:]) || a.RateFrom != "flac streaminfo" {
		t.Fatalf("16-bit FLAC: %s (%s %s)", text, class, msg)
	}
	// A round trip sends the FLAC's audio as the WAV it came from.
	if rt, err := task.ProducedWAV(text, "audio/flac", f16); err != nil || string(rt) != string(wav) {
		t.Fatalf("ProducedWAV of the FLAC: %v (%d bytes, the WAV has %d)", err, len(rt), len(wav))
	}
	wt, _, _ := task.TTS.Decode(nil, "audio/wav", wav)
	if w := facts(t, wt); w.RMSDBFS != a.RMSDBFS || w.SHA256 != a.SHA256 {
		t.Fatalf("FLAC %+v and WAV %+v of one audio differ", a, w)
	}
	f24 := flacOf("b.flac", "-b", "24")
	if a24 := facts(t, mustDecode(t, "audio/flac", f24)); a24.Seconds != 0.8 || a24.Format != "flac" || a24.Undecodable != "" {
		t.Fatalf("24-bit FLAC: %+v", a24)
	}
	bad := append([]byte(nil), f16...)
	bad[len(bad)-100] ^= 0x5a
	text = mustDecode(t, "audio/flac", bad)
	if _, class, msg := task.TTS.Score(text); class != task.ErrUndecodable {
		t.Fatalf("a damaged FLAC: class %q %s, want undecodable", class, msg)
	}
}

func mustDecode(t *testing.T, ct string, b []byte) string {
	t.Helper()
	text, _, err := task.TTS.Decode(nil, ct, b)
	if err != nil {
		t.Fatal(err)
	}
	return text
}
