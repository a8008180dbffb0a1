package task

import (
	"slices"

	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// chatWords are the report's words for an audio chat run: it answers
// clips.
var chatWords = Words{
	Title:       Phrase{"en": "Audio chat benchmark", "zh": "音频对话基准测试"},
	Input:       Phrase{"en": "clip", "zh": "音频片段"},
	Inputs:      Phrase{"en": "clips", "zh": "音频片段"},
	Item:        Phrase{"en": "a clip", "zh": "同一音频片段"},
	Fresh:       Phrase{"en": "audio", "zh": "音频"},
	Output:      Phrase{"en": "answer", "zh": "回答"},
	Done:        Phrase{"en": "answered", "zh": "回答"},
	Work:        Phrase{"en": "answering new audio", "zh": "回答新音频"},
	Cached:      Phrase{"en": "identical audio", "zh": "相同音频"},
	Noun:        Phrase{"en": "answering", "zh": "回答"},
	RTFxHeading: Phrase{"en": "Real-time factor", "zh": "实时率（RTFx）"},
	Success:     Phrase{"en": "success is HTTP 200 with a non-empty answer. ", "zh": "成功的标准是 HTTP 200 且回答非空。"},
	Unshown: Phrase{"en": "that an answer is right beyond its WER against the clip's reference transcript: the records keep the answer's text and token counts, and verify re-applies the success rule to them.",
		"zh": "回答是否正确（超出其相对参考转写的 WER 之外）：记录保存回答文本与 token 计数，verify 会对其重新应用成功规则。"},
	UnperturbedLabel: Phrase{"en": "Prompt not perturbed:", "zh": "提示词未扰动："},
	Unperturbed: Phrase{"en": "each request's clip was a distinct variant, but its text prompt was sent as it is: a prefix cache keyed by the prompt's tokens before the audio is not defeated.",
		"zh": "每个请求的音频片段都是不同的副本，但其文本提示词按原样发送：以音频之前的提示词 token 为键的前缀缓存未被规避。"},
}

// Words are chat-audio's (chatWords).
func (chatAudio) Words() Words { return chatWords }

// The names of chat-audio's figures in claims.json.
const (
	FigTTFTP50     = "ttft_p50_s"
	FigTTFTP95     = "ttft_p95_s"
	FigTTFTP99     = "ttft_p99_s"
	FigITLP50      = "itl_p50_s"
	FigITLP95      = "itl_p95_s"
	FigOutputTokPS = "output_tokens_per_s"
)

var chatFigures = []FigureSpec{
	{FigTTFTP50, "s", Phrase{"en": "TTFT p50", "zh": "首 token p50"}},
	{FigTTFTP95, "s", Phrase{"en": "TTFT p95", "zh": "首 token p95"}},
	{FigTTFTP99, "s", Phrase{"en": "TTFT p99", "zh": "首 token p99"}},
	{FigITLP50, "s", Phrase{"en": "ITL p50", "zh": "token 间隔 p50"}},
	{FigITLP95, "s", Phrase{"en": "ITL p95", "zh": "token 间隔 p95"}},
	{FigOutputTokPS, "tokens/s", Phrase{"en": "output", "zh": "输出"}},
}

// Figures: time to first token (first_byte_ns − start_ns of the
// successes read as a stream: the runner's first byte is then their first
// content chunk) p50, p95 and p99, not observed without a streamed success;
// inter-token latency (a streamed success's (end − first token) ÷ (its
// output tokens − 1), vLLM's TPOT; successes of one token left out) p50
// and p95; and output tokens per second (Σ output tokens of the measured
// successes ÷ the measured records' span, first start to last end), not
// observed when no success counted a token. Percentiles are exact
// (verdict.Percentile).
func (chatAudio) Figures() []FigureSpec { return chatFigures }

func (chatAudio) Chart() *FigureChart {
	return &FigureChart{
		Title: Phrase{"en": "Time to first token p50 (solid) and p99 (dashed) vs concurrency", "zh": "首 token 时间 p50（实线）与 p99（虚线）随并发数变化"},
		Axis:  Phrase{"en": "time to first token (s)", "zh": "首 token 时间（秒）"},
		P50:   FigTTFTP50, P99: FigTTFTP99,
	}
}

func (chatAudio) Section() Phrase { return Phrase{"en": "Audio chat", "zh": "音频对话"} }

func (chatAudio) Caption() Phrase {
	return Phrase{"en": "Medians over %s. TTFT: request sent to its first content chunk, of the streamed successes. ITL: a streamed success's time after its first token ÷ its output tokens less one. Output tokens per second over the measured span (the server's completion_tokens, else its content chunks).",
		"zh": "%s 的中位数。TTFT：从发出请求到收到第一个内容块，仅统计流式成功请求。ITL：流式成功请求首 token 之后的时间 ÷（输出 token 数 − 1）。测量时段内每秒输出 token 数（取服务器的 completion_tokens，否则为内容块数）。"}
}

// Accumulate is a repeat's chat-audio figures.
func (chatAudio) Accumulate(schemas.Run) Accumulator { return &chatAcc{} }

type chatAcc struct {
	ttft, itl     []float64
	tokens        int
	from, to      int64
	seen, counted bool
}

func (a *chatAcc) Add(r *schemas.Record) {
	if r.Phase != schemas.PhaseMeasure {
		return
	}
	if !a.seen || r.StartNs < a.from {
		a.from = r.StartNs
	}
	if !a.seen || r.EndNs > a.to {
		a.to = r.EndNs
	}
	a.seen = true
	if !r.OK {
		return
	}
	ans, err := ParseChatAnswer(r.Text)
	if err != nil {
		return
	}
	if ans.OutputTokens > 0 {
		a.tokens += ans.OutputTokens
		a.counted = true
	}
	if !ans.Stream || r.FirstByteNs <= 0 {
		return
	}
	a.ttft = append(a.ttft, float64(r.FirstByteNs-r.StartNs)/1e9)
	if ans.OutputTokens > 1 {
		a.itl = append(a.itl, float64(r.EndNs-r.FirstByteNs)/1e9/float64(ans.OutputTokens-1))
	}
}

func (a *chatAcc) Close() []Figure {
	out := make([]Figure, len(chatFigures))
	for i, s := range chatFigures {
		out[i] = Figure{Name: s.Name, Unit: s.Unit}
	}
	pct := func(v []float64, p float64) *float64 { x := verdict.Percentile(v, p); return &x }
	if len(a.ttft) > 0 {
		slices.Sort(a.ttft)
		out[0].Value, out[1].Value, out[2].Value = pct(a.ttft, 50), pct(a.ttft, 95), pct(a.ttft, 99)
	}
	if len(a.itl) > 0 {
		slices.Sort(a.itl)
		out[3].Value, out[4].Value = pct(a.itl, 50), pct(a.itl, 95)
	}
	if a.counted && a.to > a.from {
		x := float64(a.tokens) / (float64(a.to-a.from) / 1e9)
		out[5].Value = &x
	}
	return out
}
