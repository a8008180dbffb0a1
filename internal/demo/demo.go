// Package demo holds the embedded default of `benchseal demo`: five short
// English clips spoken by espeak-ng (16 kHz, 16-bit mono WAV, made with
// `espeak-ng -s 165` and `sox -r 16000 -b 16 -c 1`) with their reference
// transcripts, so the whole workflow runs on a fresh machine with no audio
// of one's own and no GPU; and that of `benchseal demo --task tts`
// (tts.go): five texts to speak, each with one of those clips and its
// transcript as its voice-clone reference, against the simulated speech
// servers of TTSEngines.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed corpus
var corpus embed.FS

// WriteCorpus writes the embedded clips and references into dir (created;
// it must not exist) as a corpus folder `benchseal run --corpus` reads.
func WriteCorpus(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	entries, err := fs.ReadDir(corpus, "corpus")
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := corpus.ReadFile("corpus/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return fmt.Errorf("write demo corpus: %w", err)
		}
	}
	return nil
}
