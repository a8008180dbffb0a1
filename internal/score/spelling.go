package score

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
)

// Whisper's British-to-American spelling table, english.json of
// openai/whisper (whisper/normalizers/english.json, last changed in
// ea1c266709125f68a89acdc0c6ddbde6773eb0ed, copied from
// c0d2f624c09dc18e709e37c2ad90c039a4eb72a2), byte for byte: 1,739 pairs.
// It is MIT licensed, Copyright (c) 2022 OpenAI; the licence is in
// LICENSE.whisper next to it. Whisper's EnglishSpellingNormalizer maps each
// white-space separated word through it (mapping.get(word, word)), after
// the numbers are standardised; englishNormalize does the same, so
// "whisper-en" and Whisper's EnglishTextNormalizer agree on every entry.
//
//go:embed english.json
var whisperSpellingJSON []byte

var spelling = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	if err := json.Unmarshal(whisperSpellingJSON, &m); err != nil {
		panic("score: embedded english.json: " + err.Error())
	}
	return m
})

func normalizeSpelling(s string) string {
	m := spelling()
	f := pyFields(s)
	for i, w := range f {
		if a, ok := m[w]; ok {
			f[i] = a
		}
	}
	return strings.Join(f, " ")
}
