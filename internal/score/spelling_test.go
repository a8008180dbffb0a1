package score

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// english.json is Whisper's file byte for byte: its git blob id is the one
// openai/whisper has at c0d2f624c09dc18e709e37c2ad90c039a4eb72a2
// (git ls-tree HEAD whisper/normalizers/english.json).
const whisperEnglishJSONBlob = "74a1c3521d9af4a84a0aa65d95b0859138640799"

func TestSpellingTableIsWhispers(t *testing.T) {
	b, err := os.ReadFile("english.json")
	if err != nil {
		t.Fatal(err)
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	if got := hex.EncodeToString(h.Sum(nil)); got != whisperEnglishJSONBlob {
		t.Errorf("english.json git blob %s, want Whisper's %s", got, whisperEnglishJSONBlob)
	}
	if _, err := os.Stat("LICENSE.whisper"); err != nil {
		t.Errorf("Whisper's MIT notice must ship with its table: %v", err)
	}
}

// wholePipeline is what Whisper's EnglishTextNormalizer makes of the
// entries whose key or value another step of the pipeline touches first
// (english.py, EnglishTextNormalizer.__call__): fillers are removed before
// spellings are standardised, "/" is a symbol that becomes a space (so a
// key holding spaces never matches one word), and a <..> span is removed.
var wholePipeline = map[string]string{
	"mmm": "", "mhm": "", "hmm": "", // fillers
	"flyer / flier": "flyer flier", "flier / flyer": "flier flyer",
	"archeology</span>": "archeology",
}

// Every entry: the spelling step maps the British word to the American one
// (as mapping.get(word, word)), and the whole whisper-en pipeline gives
// what Whisper's gives, alone and inside a sentence; the American word is
// a fixed point.
func TestSpellingEveryPair(t *testing.T) {
	var pairs map[string]string
	if err := json.Unmarshal(whisperSpellingJSON, &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1739 {
		t.Fatalf("%d pairs, want Whisper's 1739", len(pairs))
	}
	want := func(s string) string {
		if w, ok := wholePipeline[s]; ok {
			return w
		}
		return s
	}
	for uk, us := range pairs {
		if !strings.ContainsAny(uk, " ") {
			if got := normalizeSpelling(uk); got != us {
				t.Errorf("spelling(%q) = %q, want %q", uk, got, us)
			}
		}
		out := us // the spelling step comes after the others
		if w, ok := wholePipeline[uk]; ok {
			out = w
		}
		cases := [][2]string{{uk, out}, {us, want(us)}}
		if out != "" {
			cases = append(cases, [2]string{"The " + uk + ", again.", "the " + out + " again"})
		}
		for _, c := range cases {
			got, err := Normalize(NormalizerWhisperEN, c[0])
			if err != nil {
				t.Fatal(err)
			}
			if got != c[1] {
				t.Errorf("whisper-en(%q) = %q, want %q", c[0], got, c[1])
			}
		}
	}
}

// The words the issue names: 0 % WER against the American reference, as in
// Whisper's normaliser.
func TestSpellingScoresAsWhisper(t *testing.T) {
	res, err := Score([]Pair{{ID: "1", Ref: "accessorized woolens", Hyp: "Accessorised woollens."}},
		Options{Normalizer: NormalizerWhisperEN, Aligner: AlignerUnit})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rate != 0 {
		t.Errorf("WER %v, want 0 (%+v)", res.Rate, res.Counts)
	}
}
