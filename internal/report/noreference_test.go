package report

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// TestNoReferenceSummary: a run whose corpus has items without a
// reference clip (tts named voices) never says every request sent a
// distinct copy: the summary names the items sent unchanged, in every
// language, and a corpus of named voices only says nothing was perturbed.
func TestNoReferenceSummary(t *testing.T) {
	voice := schemas.Clip{ID: "v", Speak: "hello", Voice: "vivian", Perturb: schemas.PerturbNoReference}
	for _, tc := range []struct {
		name    string
		corpus  func([]schemas.Clip) []schemas.Clip
		want    map[string]string
		wantout []string
	}{
		{"some", func(c []schemas.Clip) []schemas.Clip { return append(c, voice) },
			map[string]string{"en": "the requests of 1 item without a reference clip (named voices) had nothing to perturb and were sent unchanged every time", "zh": "没有参考音频（指定音色）的 1 个条目的请求无可扰动，每次都原样发送"},
			[]string{"every request sent a distinct copy", "每个请求发送的都是其音频片段的不同副本"}},
		{"all", func([]schemas.Clip) []schemas.Clip { return []schemas.Clip{voice} },
			map[string]string{"en": "**Nothing was perturbed:** no item of the corpus has a reference clip", "zh": "**未做任何扰动：** 语料中没有任何条目带参考音频"},
			[]string{"distinct copy", "The variants follow from the run's seed", "不同副本"}},
	} {
		for lang, want := range tc.want {
			in := fixture()
			in.Lang = lang
			in.Run.Corpus = tc.corpus(in.Run.Corpus)
			md, _, _ := render(t, in)
			if !strings.Contains(string(md), want) {
				t.Errorf("%s, %s: the summary does not say %q", tc.name, lang, want)
			}
			for _, w := range tc.wantout {
				if strings.Contains(string(md), w) {
					t.Errorf("%s, %s: the summary says %q", tc.name, lang, w)
				}
			}
		}
	}
}

// TestNoReferenceCorpusSentence: a tts run's corpus sentence never says
// every text has a reference clip when some are named voices, nor its
// evidence section that every request sent a fresh one.
func TestNoReferenceCorpusSentence(t *testing.T) {
	voice := schemas.Clip{ID: "v", Speak: "hello", Voice: "vivian", Perturb: schemas.PerturbNoReference}
	for _, c := range []struct {
		all  bool
		want string
	}{
		{false, "20 with a reference clip (130 s of reference audio in all), 1 in a named voice without one"},
		{true, "The corpus has 1 text to speak, each in a named voice without a reference clip"},
	} {
		in := ttsFixture()
		if c.all {
			in.Run.Corpus = nil
		}
		in.Run.Corpus = append(in.Run.Corpus, voice)
		md, _, _ := render(t, in)
		if !strings.Contains(string(md), c.want) || strings.Contains(string(md), "each with a reference clip") {
			t.Errorf("all named voices %v: the corpus sentence does not say %q:\n%s", c.all, c.want, md)
		}
		// What the evidence shows: never that every request sent a fresh clip.
		if strings.Contains(string(md), "every request sent a reference clip no server had seen before") {
			t.Errorf("all named voices %v: the evidence says every request sent a fresh reference clip", c.all)
		}
	}
}

// TestCorpusDigestNamedVoice: items without a reference clip have no
// SHA-256, so compare's corpus digest tells them apart by what they send:
// their text and voice.
func TestCorpusDigestNamedVoice(t *testing.T) {
	run := func(voice string) *schemas.Run {
		return &schemas.Run{Corpus: []schemas.Clip{{ID: "v", Speak: "hello", Voice: voice, Perturb: schemas.PerturbNoReference}}}
	}
	if corpusDigest(run("vivian")) == corpusDigest(run("ryan")) {
		t.Error("two corpora of other voices have one digest")
	}
	if corpusDigest(run("vivian")) != corpusDigest(run("vivian")) {
		t.Error("the digest is not a function of the corpus")
	}
}
