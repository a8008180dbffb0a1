package report

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// A tts run's report (protocol.task "tts"): the same layout, caveats
// first, with the words of speech synthesis where the ASR report speaks
// of transcripts, and a "Text to speech" section of its own claims
// (internal/claims.TTS): time to first audio, RTF, audio seconds per
// second and per character, failure classes; and the FirstAudio chart.

// FirstAudio is a tts run's time to first audio p50 (solid) and p99
// (dashed) vs concurrency; only a tts run where some target's first
// audio was observed (a stream) has it (ChartsOf).
const FirstAudio = Goodput + 1

// isTTS says the run is the tts task's.
func (v *view) isTTS() bool { return task.NameOf(&v.in.Run) == task.TTS.Name() }

// byTask is asr translated, or tts for a tts run: the report's words
// where the two tasks differ.
func (v *view) byTask(asr, tts string, args ...any) string {
	if v.isTTS() {
		return v.tr(tts, args...)
	}
	return v.tr(asr, args...)
}

// firstAudioSeen says some level of some target observed time to first
// audio.
func (v *view) firstAudioSeen() bool {
	for _, tg := range v.targets {
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil && l.Median.FirstAudioP50S != nil {
				return true
			}
		}
	}
	return false
}

// withTTSCharts is charts with FirstAudio where the run has it.
func (v *view) withTTSCharts(charts []Chart) []Chart {
	if v.isTTS() && v.firstAudioSeen() {
		return append(charts, FirstAudio)
	}
	return charts
}

// ttsCorpus is the summary's corpus sentence for a tts run: texts, their
// characters and reference clips, instead of clips and transcripts.
func (v *view) ttsCorpus() []span {
	r := v.in.Run
	var secs float64
	chars, spoken := 0, 0
	for _, cl := range r.Corpus {
		secs += cl.Seconds
		if cl.Speak != "" {
			spoken++
			chars += utf8.RuneCountInString(cl.Speak)
		}
	}
	s := v.tr(". The corpus has %s to speak, each with a reference clip (%s s of reference audio in all)", v.plural(len(r.Corpus), "%d text", "%d texts"), num(secs))
	switch n := v.noInputItems(); {
	case n == len(r.Corpus):
		s = v.tr(". The corpus has %s to speak, each in a named voice without a reference clip", v.plural(len(r.Corpus), "%d text", "%d texts"))
	case n > 0:
		s = v.tr(". The corpus has %s to speak, %d with a reference clip (%s s of reference audio in all), %d in a named voice without one", v.plural(len(r.Corpus), "%d text", "%d texts"), len(r.Corpus)-n, num(secs), n)
	}
	switch spoken {
	case len(r.Corpus):
		s += v.tr("; %d characters of text.", chars)
	case 0:
		s += v.tr("; run.json does not record the texts (a run made before it did), so no seconds per character.")
	default:
		s += v.tr("; run.json records %d of the texts (%d characters).", spoken, chars)
	}
	return []span{t(s)}
}

// ms formats seconds as milliseconds, "—" for nil.
func msOf(p *float64) string {
	if p == nil {
		return "—"
	}
	return num(*p * 1e3)
}

// tts is the "Text to speech" section: per level and target the medians
// over repeats of the tts claims, and the FirstAudio chart.
func (v *view) tts() []block {
	if !v.isTTS() || len(v.levels) == 0 {
		return nil
	}
	or := func(p *float64, f func(float64) string) string {
		if p == nil {
			return "—"
		}
		return f(*p)
	}
	header := []string{v.tr("concurrency"), v.tr("target"), v.tr("req/s"), v.tr("audio s/s"), v.tr("RTF p50"), v.tr("RTF p95"),
		v.tr("first audio p50 ms"), v.tr("first audio p95 ms"), v.tr("first audio p99 ms"), v.tr("audio s/char"), v.tr("failures by class")}
	var rows [][]string
	unseen := false
	for _, c := range v.levels {
		for _, tg := range v.targets {
			l := v.lookup(tg, c)
			if l == nil {
				continue
			}
			m := l.Median
			row := []string{strconv.Itoa(c), tg}
			if _, ok, _ := tally(l); ok == 0 {
				row = append(row, "—", "—", "—", "—", "—", "—", "—", "—")
			} else {
				first := []string{msOf(m.FirstAudioP50S), msOf(m.FirstAudioP95S), msOf(m.FirstAudioP99S)}
				if m.FirstAudioP50S == nil {
					unseen = true
					first = []string{v.tr("not observed"), "—", "—"}
				}
				row = append(row, num(m.ReqPerS), or(m.RTFx, num), or(m.RTFP50S, num), or(m.RTFP95S, num))
				row = append(row, first...)
				row = append(row, or(m.AudioSPerChar, num))
			}
			classes := v.errorClasses(l)
			if classes == "" {
				classes = "0"
			}
			rows = append(rows, append(row, classes))
		}
	}
	right := allRight(len(header))
	right[1], right[len(right)-1] = false, false
	caption := v.tr("Text to speech, medians over %s: successful requests per second; seconds of audio produced per second of wall time (rtfx); RTF, each successful request's latency ÷ the seconds of audio it produced (under 1 is faster than real time), p50 and p95; time to first audio, request sent to its first non-empty audio bytes (not the headers, not a WAV header alone), p50, p95 and p99; seconds of audio produced per character of input text; failed measured requests by class over all repeats (silent, too_short, undecodable and stream_truncated beside the HTTP ones).", v.plural(v.repeats, "%d repeat", "%d repeats"))
	if unseen {
		caption += v.tr(" \"not observed\": the target answered in a format read whole (flac, mp3, opus) or in a bundle sealed before whole WAV and PCM bodies were read as they came: its first byte is its headers, not audio; WAV or PCM (a stream or not) observes it.")
	}
	out := []block{heading{2, v.tr("Text to speech")}}
	if v.firstAudioSeen() {
		out = append(out, v.fig(FirstAudio))
	}
	return append(out, table{caption: caption, header: header, right: right, rows: rows})
}

// ttsCaveats: what a tts run cannot show. Time to first audio not
// observed for a target that answered in a format read whole; the text sent
// unperturbed.
func (v *view) ttsCaveats() [][]span {
	if !v.isTTS() {
		return nil
	}
	var items [][]span
	var whole []string
	for _, tg := range v.targets {
		ok, seen := false, false
		for _, c := range v.levels {
			if l := v.lookup(tg, c); l != nil {
				_, s, _ := tally(l)
				ok = ok || s > 0
				seen = seen || l.Median.FirstAudioP50S != nil
			}
		}
		if ok && !seen {
			whole = append(whole, tg)
		}
	}
	if len(whole) > 0 {
		items = append(items, []span{b(v.tr("Time to first audio not observed:")), t(" " + v.tr("%s answered in a format read whole (flac, mp3, opus), or the bundle predates reading whole WAV and PCM bodies as they come: their first-byte times are their headers', not time to first audio, and are not comparable with a target's first audio.", strings.Join(whole, ", ")))})
	}
	if v.in.Run.Protocol.Perturb {
		items = append(items, []span{b(v.tr("Text not perturbed:")), t(" " + v.tr("each request's reference clip was a distinct variant, but its text was sent as it is: a prefix cache keyed by the text's tokens is not defeated, and the cache probe measures only what identical references add."))})
	}
	// That no audio is sealed is said once, in the evidence ("What a
	// tts bundle cannot show").
	return items
}

// firstAudioGetters are FirstAudio's series: each target's p50 (solid) and p99
// (dashed), levels without an observed first audio left out.
func firstAudioGetters() [2]func(m *schemas.Metrics) float64 {
	return [2]func(m *schemas.Metrics) float64{
		func(m *schemas.Metrics) float64 { return deref(m.FirstAudioP50S) },
		func(m *schemas.Metrics) float64 { return deref(m.FirstAudioP99S) },
	}
}
