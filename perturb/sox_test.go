package perturb

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-audio/wav"
)

func needSox(t *testing.T) string {
	t.Helper()
	sox, err := exec.LookPath("sox")
	if err != nil {
		t.Skip("sox not on PATH (CI installs it)")
	}
	return sox
}

func soxMake(t *testing.T, sox, path string, args ...string) {
	t.Helper()
	all := append([]string{"-n"}, args...)
	all = append(all, path, "synth", "0.25", "sine", "440", "sine", "523")
	if out, err := exec.Command(sox, all...).CombinedOutput(); err != nil {
		t.Fatalf("sox %s: %v\n%s", strings.Join(all, " "), err, out)
	}
}

func soxInfo(t *testing.T, sox, path, flag string) int64 {
	t.Helper()
	out, err := exec.Command(sox, "--i", flag, path).Output()
	if err != nil {
		t.Fatalf("sox --i %s: %v", flag, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		t.Fatalf("sox --i %s: %q", flag, out)
	}
	return n
}

// TestSoxFiles proves real-world files work: formats sox writes (plain and
// extensible headers, fact chunks) parse to what sox and go-audio/wav say,
// and their variants are exact one-LSB changes.
func TestSoxFiles(t *testing.T) {
	sox := needSox(t)
	cases := []struct {
		name string
		args []string
		kind Kind
		bits int
	}{
		{"u8", []string{"-r", "8000", "-b", "8"}, KindPCM, 8},
		{"s16", []string{"-r", "16000", "-b", "16"}, KindPCM, 16},
		{"s16-stereo", []string{"-r", "16000", "-b", "16", "-c", "2"}, KindPCM, 16},
		{"s24", []string{"-r", "48000", "-b", "24"}, KindPCM, 24},
		{"s32", []string{"-r", "16000", "-b", "32"}, KindPCM, 32},
		{"s16-6ch", []string{"-r", "16000", "-b", "16", "-c", "6"}, KindPCM, 16},
		{"s24-3ch", []string{"-r", "22050", "-b", "24", "-c", "3"}, KindPCM, 24},
		{"f32", []string{"-r", "16000", "-e", "floating-point", "-b", "32"}, KindFloat, 32},
		{"f32-stereo", []string{"-r", "44100", "-e", "floating-point", "-b", "32", "-c", "2"}, KindFloat, 32},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".wav")
			soxMake(t, sox, path, c.args...)
			w, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := w.Format
			if f.Kind != c.kind || f.BitsPerSample != c.bits || f.ValidBits != c.bits ||
				int64(f.Channels) != soxInfo(t, sox, path, "-c") || int64(f.SampleRate) != soxInfo(t, sox, path, "-r") ||
				w.Frames() != soxInfo(t, sox, path, "-s") {
				t.Fatalf("format %+v, %d frames disagrees with sox --i", f, w.Frames())
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			d := wav.NewDecoder(fh)
			d.ReadInfo()
			if int(d.NumChans) != f.Channels || int(d.SampleRate) != f.SampleRate || int(d.BitDepth) != f.BitsPerSample {
				t.Fatalf("go-audio/wav reads %d ch %d Hz %d bits, we %+v", d.NumChans, d.SampleRate, d.BitDepth, f)
			}
			var ref []int
			if f.Kind == KindPCM {
				buf, err := d.FullPCMBuffer()
				if err != nil {
					t.Fatal(err)
				}
				ref = buf.Data
				if int64(len(ref)) != w.Samples() {
					t.Fatalf("go-audio/wav decodes %d samples, we count %d", len(ref), w.Samples())
				}
			}
			clip := sha256.Sum256(w.Bytes)
			for n := range int64(50) {
				i, err := Plan{Seed: 7}.Index(clip, w.Samples(), n)
				if err != nil {
					t.Fatal(err)
				}
				v, err := w.Variant(i)
				if err != nil {
					t.Fatal(err)
				}
				if ref != nil && (v.OldValue != float64(ref[i]) || (v.NewValue-v.OldValue)*(v.NewValue-v.OldValue) != 1) {
					t.Fatalf("sample %d: %v -> %v, go-audio/wav decodes %d", i, v.OldValue, v.NewValue, ref[i])
				}
				var out bytes.Buffer
				w.Splice(v).WriteTo(&out)
				diff := 0
				for j := range out.Bytes() {
					if out.Bytes()[j] != w.Bytes[j] {
						diff++
					}
				}
				if diff != 1 || out.Bytes()[v.ByteOffset] == w.Bytes[v.ByteOffset] || v.SHA256 != sha256.Sum256(out.Bytes()) {
					t.Fatalf("sample %d: %d bytes differ", i, diff)
				}
			}
			// The variant is still a file sox reads, with the same shape.
			v, _ := w.Variant(w.Samples() - 1)
			var out bytes.Buffer
			w.Splice(v).WriteTo(&out)
			vp := filepath.Join(dir, c.name+"-variant.wav")
			if err := os.WriteFile(vp, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if soxInfo(t, sox, vp, "-s") != w.Frames() {
				t.Fatal("sox reads the variant with another length")
			}
		})
	}
}

// TestSoxCompressed: files sox writes in companded or compressed
// encodings are refused, naming the format.
func TestSoxCompressed(t *testing.T) {
	sox := needSox(t)
	dir := t.TempDir()
	for _, c := range []struct {
		enc  string
		tag  uint16
		name string
	}{
		{"u-law", 0x0007, "mu-law"},
		{"a-law", 0x0006, "A-law"},
		{"ms-adpcm", 0x0002, "Microsoft ADPCM"},
		{"ima-adpcm", 0x0011, "IMA ADPCM"},
		{"gsm-full-rate", 0x0031, "GSM 6.10"},
	} {
		path := filepath.Join(dir, c.enc+".wav")
		soxMake(t, sox, path, "-r", "8000", "-e", c.enc)
		_, err := ReadFile(path)
		var ce *CompressedError
		if !errors.As(err, &ce) || ce.Tag != c.tag || ce.Name != c.name || !strings.HasPrefix(err.Error(), path+": compressed format") {
			t.Errorf("%s: %v", c.enc, err)
		}
	}
}
