package session_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// TestSealedPlanNamedVoice: a sealed tts run replays each item's text and
// voice; an item without a reference clip has no clip to load and comes
// back as one without input (sent unchanged), with no variant numbering;
// a voice-clone item keeps its text to speak (a replay once lost it and
// was refused: "no text to speak").
func TestSealedPlanNamedVoice(t *testing.T) {
	s := sealedRun()
	s.Run.Protocol.Task, s.Run.Protocol.SuccessRule = "tts", task.TTSSuccessRule
	wav := testkit.NoiseWAV(1.5, 3)
	sum := sha256.Sum256(wav)
	file := "inputs/" + hex.EncodeToString(sum[:]) + ".wav"
	s.Files = map[string][]byte{file: wav}
	s.Run.Corpus = []schemas.Clip{{ID: "v", Source: "c.jsonl:1", Speak: "Hello there.", Voice: "vivian", Language: "English", Perturb: schemas.PerturbNoReference},
		{ID: "a", File: file, SHA256: hex.EncodeToString(sum[:]), Frames: 24000, Channels: 1, SampleRate: 16000, Bits: 16, Seconds: 1.5, Text: "noise", Speak: "Clone me."}}
	if err := s.LoadClips("e.tar.zst", ""); err != nil {
		t.Fatalf("LoadClips: %v (an item without a reference clip has nothing to load)", err)
	}
	p, _, _, err := s.Plan(session.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Corpus[0]
	if !c.NoInput() || c.Speak != "Hello there." || c.Voice != "vivian" || c.Language != "English" {
		t.Errorf("replayed item %+v", c)
	}
	if a := p.Corpus[1]; a.NoInput() || a.Speak != "Clone me." || a.Text != "noise" {
		t.Errorf("replayed voice-clone item %+v", a)
	}
	if _, ok := s.Origin.FirstVariant["v"]; ok || len(s.Origin.FirstVariant) != 1 {
		t.Errorf("first variants %v: want the voice-clone item's only", s.Origin.FirstVariant)
	}
}
