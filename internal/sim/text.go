package sim

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
)

// defaultWords make up the answer to audio the corpus does not hold.
var defaultWords = []string{
	"the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog",
	"hello", "world", "today", "we", "measure", "speech", "servers", "with",
	"care", "and", "numbers", "that", "hold", "up", "under", "review",
}

// substituteWords replace reference words when WordErrorRate > 0; none of
// them is a word of defaultWords, so a substitution always counts as one.
var substituteWords = []string{
	"zebra", "quartz", "violet", "marble", "copper", "pepper", "lantern",
	"harbor", "willow", "meadow", "ember", "falcon", "saffron", "orchid",
}

// unknownText is the answer to audio the corpus does not hold: a
// pseudo-sentence of 4 to 11 words chosen by the body's length and the
// seed, so every variant of one unknown clip gets the same answer.
func unknownText(seed uint64, length int) string {
	r := rand.New(rand.NewPCG(seed, uint64(length)))
	n := 4 + r.IntN(8)
	words := make([]string, n)
	for i := range words {
		words[i] = defaultWords[r.IntN(len(defaultWords))]
	}
	return strings.Join(words, " ")
}

// withErrors substitutes round(rate * words) words of text, chosen by a
// generator seeded with seed and the clip's identity, so that every variant
// of a clip is answered with the same errors and the scorer's WER is
// reproducible.
func withErrors(text string, rate float64, seed uint64, clipKey [32]byte) string {
	if rate <= 0 {
		return text
	}
	words := strings.Fields(text)
	k := int(math.Round(rate * float64(len(words))))
	if k == 0 {
		return text
	}
	r := rand.New(rand.NewPCG(seed, binary.LittleEndian.Uint64(clipKey[:8])))
	for _, i := range r.Perm(len(words))[:k] {
		j := r.IntN(len(substituteWords))
		if strings.EqualFold(substituteWords[j], words[i]) {
			j = (j + 1) % len(substituteWords)
		}
		words[i] = substituteWords[j]
	}
	return strings.Join(words, " ")
}
