package perturb_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/benchseal/benchseal/perturb"
)

func TestInfoAndChange(t *testing.T) {
	b := exampleWAV()
	w, err := perturb.Parse("clip.wav", b)
	if err != nil {
		t.Fatal(err)
	}
	info := w.Info("clip.wav")
	sum := sha256.Sum256(b)
	if info.SHA256 != hex.EncodeToString(sum[:]) || info.Format != "pcm" || info.Samples != 4 || info.Frames != 4 ||
		info.SampleRate != 8000 || info.DataOffset != 44 || info.DataSize != 8 || len(info.Chunks) != 2 || info.Chunks[1].ID != "data" {
		t.Errorf("Info = %+v", info)
	}
	j, _ := json.Marshal(info)
	var keys map[string]any
	json.Unmarshal(j, &keys)
	for _, k := range []string{"file", "sha256", "format_tag", "valid_bits", "data_offset", "chunks"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON has no key %q: %s", k, j)
		}
	}

	// The seeded variant is the plan's pick at n = 0.
	v, err := w.SeededVariant(42)
	if err != nil {
		t.Fatal(err)
	}
	want, err := perturb.Plan{Seed: 42}.Index(sum, 4, 0)
	if err != nil || v.SampleIndex != want {
		t.Fatalf("SeededVariant(42) picks %d, the plan %d (%v)", v.SampleIndex, want, err)
	}
	c := w.Change(v)
	if c.InputSHA256 != info.SHA256 || c.OutputSHA256 != hex.EncodeToString(v.SHA256[:]) || c.OutputSHA256 == c.InputSHA256 || c.SampleIndex != want {
		t.Errorf("Change = %+v", c)
	}
}
