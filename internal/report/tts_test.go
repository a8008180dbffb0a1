package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// ttsFixture is the fixture as a tts run: Qwen3-TTS on both targets, a
// text and a reference clip per item, vllm-omni streaming raw PCM (its
// first audio observed), sglang-omni answering whole bodies (not
// observed), RTF = latency ÷ (0.07 s × 40 characters), a few silent
// answers at C = 16.
func ttsFixture() Input {
	in := fixture()
	r := &in.Run
	r.Protocol.Task, r.Protocol.SuccessRule = task.TTS.Name(), task.TTSSuccessRule
	r.Scoring = schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}
	for i := range r.Targets {
		r.Targets[i].Model = "Qwen/Qwen3-TTS-12Hz-1.7B-Base"
	}
	r.Targets[0].RequestFields = map[string]string{"response_format": "wav"}
	r.Targets[0].LaunchCommand = "python -m sglang_omni.cli.serve --model-path Qwen/Qwen3-TTS-12Hz-1.7B-Base"
	r.Targets[1].RequestFields = map[string]string{"stream_format": "audio", "response_format": "pcm"}
	r.Protocol.Stream = true
	for i := range r.Corpus {
		r.Corpus[i].Text, r.Corpus[i].Speak = "reference words", strings.Repeat("x", 40)
	}
	in.Claims.Scoring = nil
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for k := range l.Repeats {
				m := &l.Repeats[k]
				m.Quality = nil
				lat := *m.LatencyP50S
				m.Figures = map[string]float64{task.FigRTFP50: lat / 2.8, task.FigRTFP95: lat * 1.6 / 2.8, task.FigAudioPerChar: 0.07}
				m.RTFx = ptr(m.ReqPerS * 2.8)
				if ti == 1 {
					m.Figures[task.FigFirstAudioP50], m.Figures[task.FigFirstAudioP95], m.Figures[task.FigFirstAudioP99] = lat*0.2, lat*0.3, lat*0.4
				}
				if m.Errors["http"] > 0 {
					m.Errors["silent"] = m.Errors["http"]
					delete(m.Errors, "http")
				}
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
			l.Median.Figures, l.Min.Figures, l.Max.Figures = l.Repeats[1].Figures, l.Repeats[0].Figures, l.Repeats[2].Figures
		}
	}
	in.Servers[0].Probes[0].Body = `{"object":"list","data":[{"id":"Qwen/Qwen3-TTS-12Hz-1.7B-Base"}]}`
	in.Servers[1].Probes[0].Body = `{"data":[{"id":"Qwen/Qwen3-TTS-12Hz-1.7B-Base"}]}`
	return in
}

// TestGoldenTTS: a tts run's report, in English and Chinese, and its
// task figure chart.
func TestGoldenTTS(t *testing.T) {
	in := ttsFixture()
	in.Verify = fixtureVerify()
	in.LinkCharts = true
	md, _, svgs := render(t, in)
	golden(t, "tts/REPORT.md", md)
	for _, ch := range []Chart{TaskFigure, RTFx} {
		if svgs[ch] == nil {
			t.Fatalf("a tts run's report has no %s", ch.File())
		}
		golden(t, "tts/"+ch.File(), svgs[ch])
	}
	in.Lang = "zh"
	md, _, _ = render(t, in)
	golden(t, "zh/tts/REPORT.md", md)
}

// TestTTSWords: a tts report has its table, says what was not observed,
// and speaks of no transcripts; an ASR report has no tts section.
func TestTTSWords(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, ttsFixture()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"## Text to speech", "Text-to-speech benchmark", "first audio p99 ms", "not observed", "Time to first audio not observed:", "sglang-omni answered in a format read whole", "silent 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("tts report lacks %q", want)
		}
	}
	for _, asr := range []string{"transcript", "transcription", "transcribing", "Speech-to-text", "Accuracy (none)"} {
		if i := strings.Index(md, asr); i >= 0 {
			t.Errorf("tts report speaks of %q: …%s…", asr, md[max(0, i-80):min(len(md), i+80)])
		}
	}
	b.Reset()
	if err := Markdown(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Text to speech") || slicesHas(ChartsOf(fixture()), TaskFigure) {
		t.Error("an ASR report has a tts section or chart")
	}
}

func slicesHas(cs []Chart, c Chart) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// A round trip whose recogniser heard no speech (WER at or above 100 %:
// 104.65 %, as issue 40's) is "not heard", never an accuracy figure; a
// level it heard keeps its figure; zh follows.
func TestRoundTripNotHeard(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		in := ttsFixture()
		in.Lang = lang
		in.Run.Protocol.RoundTrip = &schemas.RoundTrip{ASR: "asr", Model: "whisper"}
		for ti := range in.Claims.Targets {
			for li := range in.Claims.Targets[ti].Levels {
				l := &in.Claims.Targets[ti].Levels[li]
				q := 0.031
				if ti == 0 {
					q = 1.0465
				}
				for k := range l.Repeats {
					l.Repeats[k].Quality = ptr(q)
				}
				l.Median.Quality, l.Min.Quality, l.Max.Quality = ptr(q), ptr(q), ptr(q)
			}
		}
		md := mdOf(t, in)
		acc := md[strings.Index(md, "| 1 | "):]
		want := map[string][]string{
			"en": {"| 1 | not heard | 3.10 % |", "**Not heard:** sglang-omni at C = 1, 2, 4, 8, 16 (up to 104.65 %): the recogniser heard no speech"},
			"zh": {"| 1 | 未听到 | 3.10 % |", "**未听到:** sglang-omni"},
		}[lang]
		for _, w := range want {
			if !strings.Contains(acc, w) {
				t.Errorf("%s: accuracy lacks %q:\n%s", lang, w, acc)
			}
		}
		if strings.Contains(md, "104.65 % |") || strings.Contains(md, "| 104.65") {
			t.Errorf("%s: 104.65 %% tabulated as accuracy:\n%s", lang, acc)
		}
	}
}
