package task

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// ttsWords are the report's words for a tts run: it produces audio from
// texts, each with a reference clip.
var ttsWords = Words{
	Title:       Phrase{"en": "Text-to-speech benchmark", "zh": "语音合成基准测试"},
	Input:       Phrase{"en": "reference clip", "zh": "参考音频"},
	Inputs:      Phrase{"en": "reference clips", "zh": "参考音频"},
	Item:        Phrase{"en": "an item", "zh": "同一条目"},
	Fresh:       Phrase{"en": "reference clip", "zh": "参考音频"},
	Output:      Phrase{"en": "the produced audio's facts (format, rate, seconds, RMS, longest silence, SHA-256; not the audio)", "zh": "生成音频的特征（格式、采样率、秒数、RMS、最长静音、SHA-256；不含音频本身）"},
	Done:        Phrase{"en": "produced", "zh": "生成"},
	Work:        Phrase{"en": "synthesising from new references", "zh": "基于新参考音频合成"},
	Cached:      Phrase{"en": "identical references", "zh": "相同参考音频"},
	Noun:        Phrase{"en": "synthesis", "zh": "合成"},
	RTFxHeading: Phrase{"en": "Audio produced per second", "zh": "每秒生成的音频"},
	Success:     Phrase{"en": "success is HTTP 200 with decodable audio of at least 0.3 s whose RMS is at least -50 dBFS. ", "zh": "成功的标准是 HTTP 200 且音频可解码、时长至少 0.3 秒、RMS 不低于 -50 dBFS。"},
	NoQuality:   Phrase{"en": "Not measured: no ASR heard the audio produced (run with --asr-target NAME=URL for a round-trip WER), so no accuracy was computed.", "zh": "未测量：没有 ASR 听过生成的音频（用 --asr-target NAME=URL 运行可得往返 WER），因此未计算准确率。"},
	RTFxChart:   Phrase{"en": "Audio produced: seconds of audio per second vs concurrency", "zh": "生成音频：每秒生成的音频秒数随并发数变化"},
	RTFxAxis:    Phrase{"en": "audio s / s (× real time)", "zh": "音频秒数 / 秒（× 实时）"},
	Unshown: Phrase{"en": "that the produced audio is speech of the text, or how it sounded: the records keep its facts (docs/bundle.md), not the audio.",
		"zh": "生成的音频是否为该文本的语音、听起来如何：记录只保存其特征（docs/bundle.md），不保存音频。"},
	UnshownHeard: Phrase{"en": "what the produced audio sounded like beyond what the round trip's ASR server says it heard (roundtrip/): the records keep its facts (seconds, RMS, SHA-256), not the audio.",
		"zh": "生成的音频听起来如何，超出往返 ASR 服务器所说听到的内容（roundtrip/）之外的部分：记录只保存其特征（秒数、RMS、SHA-256），不保存音频。"},
	UnperturbedLabel: Phrase{"en": "Text not perturbed:", "zh": "文本未扰动："},
	Unperturbed: Phrase{"en": "each request's reference clip was a distinct variant, but not its text: a prefix cache keyed by the text's tokens is not defeated, and the cache probe measures only what identical references add.",
		"zh": "每个请求的参考音频都是不同的副本，但其文本按原样发送：以文本 token 为键的前缀缓存未被规避，缓存探测只衡量相同参考音频带来的影响。"},
	Texts: true,
}

// Words are tts's (ttsWords).
func (tts) Words() Words { return ttsWords }

// The names of tts's figures in claims.json (as sealed before they moved
// here: schemas.Metrics had them as fields).
const (
	FigRTFP50        = "rtf_p50"
	FigRTFP95        = "rtf_p95"
	FigFirstAudioP50 = "first_audio_p50_s"
	FigFirstAudioP95 = "first_audio_p95_s"
	FigFirstAudioP99 = "first_audio_p99_s"
	FigAudioPerChar  = "audio_s_per_char"
)

var ttsFigures = []FigureSpec{
	{FigRTFP50, "x", Phrase{"en": "RTF p50", "zh": "RTF p50"}},
	{FigRTFP95, "x", Phrase{"en": "RTF p95", "zh": "RTF p95"}},
	{FigFirstAudioP50, "s", Phrase{"en": "first audio p50", "zh": "首段音频 p50"}},
	{FigFirstAudioP95, "s", Phrase{"en": "first audio p95", "zh": "首段音频 p95"}},
	{FigFirstAudioP99, "s", Phrase{"en": "first audio p99", "zh": "首段音频 p99"}},
	{FigAudioPerChar, "s/char", Phrase{"en": "audio", "zh": "音频"}},
}

// Figures: RTF (latency ÷ the record's produced seconds) p50 and p95 of
// the successes; time to first audio (first_byte_ns − start_ns) p50, p95
// and p99 of the successes read as a stream (their Audio.Stream: the
// runner's first_byte_ns is then their first non-empty PCM bytes), not
// observed when no success was; and the successes' produced seconds per
// character spoken (Σ seconds ÷ Σ code points of run.json's corpus
// speak), not observed when an item has no text. Percentiles are exact
// (verdict.Percentile).
func (tts) Figures() []FigureSpec { return ttsFigures }

func (tts) Chart() *FigureChart {
	return &FigureChart{
		Title: Phrase{"en": "Time to first audio p50 (solid) and p99 (dashed) vs concurrency", "zh": "首段音频时间 p50（实线）和 p99（虚线）随并发数变化"},
		Axis:  Phrase{"en": "time to first audio (s)", "zh": "首段音频时间（秒）"},
		P50:   FigFirstAudioP50, P99: FigFirstAudioP99,
		UnseenLabel: Phrase{"en": "Time to first audio not observed:", "zh": "首段音频时间未观测："},
		Unseen: Phrase{"en": "%s answered in a format read whole (flac, mp3, opus), or the bundle predates reading whole WAV and PCM bodies as they come: their first-byte times are their headers', not time to first audio, and are not comparable with a target's first audio.",
			"zh": "%s 以需整体读取的格式（flac、mp3、opus）应答，或证据包早于按到达顺序读取完整 WAV 与 PCM 响应体的版本：其首字节时间是响应头的时间，不是首段音频时间，不能与其他目标的首段音频时间比较。"},
		UnseenCaption: Phrase{"en": " \"not observed\": the target answered in a format read whole (flac, mp3, opus) or in a bundle sealed before whole WAV and PCM bodies were read as they came: its first byte is its headers, not audio; WAV or PCM (a stream or not) observes it.",
			"zh": "“未观测”：该目标以需整体读取的格式（flac、mp3、opus）应答，或证据包封存于按到达顺序读取完整 WAV 与 PCM 响应体之前：其首字节是响应头而非音频；WAV 或 PCM（流式与否）均可观测。"},
	}
}

func (tts) Section() Phrase { return Phrase{"en": "Text to speech", "zh": "语音合成"} }

func (tts) Caption() Phrase {
	return Phrase{"en": "Medians over %s. RTF: a success's latency ÷ the seconds of audio it produced (under 1 is faster than real time). First audio: request sent to its first non-empty audio bytes (not the headers). Audio: seconds produced per character of text.",
		"zh": "%s 的中位数。RTF：成功请求的延迟 ÷ 其生成的音频秒数（小于 1 表示快于实时）。首段音频：从发出请求到收到第一段非空音频字节（不是响应头）。音频：每个文本字符生成的音频秒数。"}
}

// Accumulate is a repeat's tts figures over run's corpus texts.
func (tts) Accumulate(run schemas.Run) Accumulator {
	a := &ttsAcc{all: true}
	for _, c := range run.Corpus {
		if c.Speak == "" {
			continue
		}
		if a.chars == nil {
			a.chars = map[string]int{}
		}
		a.chars[c.ID] = utf8.RuneCountInString(c.Speak)
	}
	a.all = a.chars != nil
	return a
}

type ttsAcc struct {
	chars            map[string]int
	rtf, first, secs []float64
	n                int
	all              bool
}

func (a *ttsAcc) Add(r *schemas.Record) {
	if r.Phase != schemas.PhaseMeasure || !r.OK {
		return
	}
	if r.Seconds > 0 {
		a.rtf = append(a.rtf, float64(r.EndNs-r.StartNs)/1e9/r.Seconds)
	}
	if au, err := ParseAudio(r.Text); err == nil && au.Stream != "" && r.FirstByteNs > 0 {
		a.first = append(a.first, float64(r.FirstByteNs-r.StartNs)/1e9)
	}
	c, ok := a.chars[r.Clip]
	if !ok || c == 0 {
		a.all = false
	}
	a.secs = append(a.secs, r.Seconds)
	a.n += c
}

func (a *ttsAcc) Close() []Figure {
	out := make([]Figure, len(ttsFigures))
	for i, s := range ttsFigures {
		out[i] = Figure{Name: s.Name, Unit: s.Unit}
	}
	pct := func(v []float64, p float64) *float64 { x := verdict.Percentile(v, p); return &x }
	if len(a.rtf) > 0 {
		slices.Sort(a.rtf)
		out[0].Value, out[1].Value = pct(a.rtf, 50), pct(a.rtf, 95)
	}
	if len(a.first) > 0 {
		slices.Sort(a.first)
		out[2].Value, out[3].Value, out[4].Value = pct(a.first, 50), pct(a.first, 95), pct(a.first, 99)
	}
	if a.all && a.n > 0 {
		// Sum in sorted order so the figure does not depend on record order.
		slices.Sort(a.secs)
		var sum float64
		for _, s := range a.secs {
			sum += s
		}
		x := sum / float64(a.n)
		out[5].Value = &x
	}
	return out
}

// CheckRecords is tts's same-audio rule: records keep no raw audio, only
// its facts (Audio), so a duration inflated consistently inside one
// record (its output's seconds and its audio_seconds) is caught only
// where another record holds the same audio: the same PCM (the facts'
// SHA-256) is the same number of samples (frames × channels) and the same
// RMS, whatever else differs (a WAV and a raw body of one audio hash
// alike). A synthesiser that samples (a real one) rarely repeats itself,
// so this holds little there; a deterministic one (the simulator, a
// fixed seed) repeats every text.
func (tts) CheckRecords(_ schemas.Run, recs []RecordAt) []Problem {
	type seen struct {
		file         string
		line, frames int
		channels     int
		rms          float64
		seconds      float64
		rate         int
	}
	var out []Problem
	first := map[string]seen{}
	for _, r := range recs {
		a, err := ParseAudio(r.Text)
		if err != nil || a.SHA256 == "" || a.SampleRate <= 0 {
			continue
		}
		s := seen{r.File, r.Line, int(math.Round(a.Seconds * float64(a.SampleRate))), a.Channels, a.RMSDBFS, a.Seconds, a.SampleRate}
		p, ok := first[a.SHA256]
		if !ok {
			first[a.SHA256] = s
			continue
		}
		// The same bytes are the same samples and RMS; the same bytes read
		// at another rate or channel count (another header) are not edited.
		if p.frames*p.channels != s.frames*s.channels || p.rms != s.rms {
			out = append(out, Problem{r.File, r.Line, fmt.Sprintf(
				"the same audio (SHA-256 %.12s…) as %s line %d, yet %v s at %d Hz (%d frames, %d channels, RMS %v dBFS) here and %v s at %d Hz (%d frames, %d channels, RMS %v dBFS) there: the facts of one of them were edited",
				a.SHA256, p.file, p.line, s.seconds, s.rate, s.frames, s.channels, s.rms, p.seconds, p.rate, p.frames, p.channels, p.rms)})
		}
	}
	return out
}

// ServerAudioFamily is vLLM-Omni's histogram of each speech request's
// produced seconds (audio_frames / sample_rate, observed at its finish:
// vllm_omni/metrics/modality.py observe_modality_at_finalize @d6240742;
// internal/engine's tts row).
const ServerAudioFamily = "vllm_omni:audio_duration_s"

// ServerFamily is ServerAudioFamily: verify's check 9 holds the records'
// produced seconds to it.
func (tts) ServerFamily() string { return ServerAudioFamily }

// Counted is a 200 answer's decodable seconds.
func (tts) Counted(r *schemas.Record) (float64, bool) {
	if r.Status != 200 {
		return 0, false
	}
	a, err := ParseAudio(r.Text)
	if err != nil || a.SampleRate <= 0 {
		return 0, false
	}
	return a.Seconds, true
}
