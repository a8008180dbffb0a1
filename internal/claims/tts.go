package claims

import (
	"slices"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// SpokenChars is each corpus item's count of Unicode code points of the
// text a tts request spoke (run.json's corpus speak), by clip id; nil
// when run.json records no text for any item (runs made before it did).
func SpokenChars(run schemas.Run) map[string]int {
	var out map[string]int
	for _, c := range run.Corpus {
		if c.Speak == "" {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[c.ID] = utf8.RuneCountInString(c.Speak)
	}
	return out
}

// TTS fills a tts repeat's figures into m from its measured records (see
// schemas.Metrics): RTF (latency ÷ the record's produced seconds) p50
// and p95 of the successes; time to first audio (first_byte_ns −
// start_ns) p50, p95 and p99 of the successes read as a stream (their
// output's task.Audio.Stream: the runner's first_byte_ns is then their
// first non-empty PCM bytes), none when no success was a stream; and the successes' produced seconds
// per character spoken (chars: SpokenChars), none without chars or when
// a success's item has none. Percentiles are exact (Percentile).
func TTS(m *schemas.Metrics, recs []schemas.Record, chars map[string]int) {
	var rtf, first, secs []float64
	n, allChars := 0, chars != nil
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure || !r.OK {
			continue
		}
		if r.Seconds > 0 {
			rtf = append(rtf, seconds(r.EndNs-r.StartNs)/r.Seconds)
		}
		if a, err := task.ParseAudio(r.Text); err == nil && a.Stream != "" && r.FirstByteNs > 0 {
			first = append(first, seconds(r.FirstByteNs-r.StartNs))
		}
		c, ok := chars[r.Clip]
		if !ok || c == 0 {
			allChars = false
		}
		secs = append(secs, r.Seconds)
		n += c
	}
	if len(rtf) > 0 {
		slices.Sort(rtf)
		m.RTFP50S, m.RTFP95S = ptr(Percentile(rtf, 50)), ptr(Percentile(rtf, 95))
	}
	if len(first) > 0 {
		slices.Sort(first)
		m.FirstAudioP50S, m.FirstAudioP95S, m.FirstAudioP99S = ptr(Percentile(first, 50)), ptr(Percentile(first, 95)), ptr(Percentile(first, 99))
	}
	if allChars && n > 0 {
		// Sum in sorted order so the figure does not depend on record order.
		slices.Sort(secs)
		var sum float64
		for _, s := range secs {
			sum += s
		}
		m.AudioSPerChar = ptr(sum / float64(n))
	}
}
