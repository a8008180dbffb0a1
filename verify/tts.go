package verify

import (
	"fmt"
	"math"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkSameAudio is part of check 5 for a tts run: records keep no raw
// audio, only its facts (task.Audio), so a duration inflated
// consistently inside one record (its output's seconds and its
// audio_seconds) is caught only where another record holds the same
// audio: the same PCM (the facts' SHA-256) is the same number of samples
// (frames × channels) and the same RMS, whatever else differs (a WAV and a raw
// body of one audio hash alike). A synthesiser that samples (a real
// one) rarely repeats itself, so this holds little there; a
// deterministic one (the simulator, a fixed seed) repeats every text.
func checkSameAudio(c *Check, ev *evidence, tk task.Task) {
	if tk.Name() != task.TTS.Name() {
		return
	}
	type seen struct {
		file         string
		line, frames int
		channels     int
		rms          float64
		seconds      float64
		rate         int
	}
	first := map[string]seen{}
	for _, f := range ev.recFiles {
		for i, r := range ev.records[f] {
			a, err := task.ParseAudio(r.Text)
			if err != nil || a.SHA256 == "" || a.SampleRate <= 0 {
				continue
			}
			s := seen{f, i + 1, int(math.Round(a.Seconds * float64(a.SampleRate))), a.Channels, a.RMSDBFS, a.Seconds, a.SampleRate}
			p, ok := first[a.SHA256]
			if !ok {
				first[a.SHA256] = s
				continue
			}
			// The same bytes are the same samples and RMS; the same bytes read
			// at another rate or channel count (another header) are not edited.
			if p.frames*p.channels != s.frames*s.channels || p.rms != s.rms {
				c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf(
					"the same audio (SHA-256 %.12s…) as %s line %d, yet %v s at %d Hz (%d frames, %d channels, RMS %v dBFS) here and %v s at %d Hz (%d frames, %d channels, RMS %v dBFS) there: the facts of one of them were edited",
					a.SHA256, p.file, p.line, s.seconds, s.rate, s.frames, s.channels, s.rms, p.seconds, p.rate, p.frames, p.channels, p.rms)})
			}
		}
	}
}

// serverAudioFamily is vLLM-Omni's histogram of each speech request's
// produced seconds (audio_frames / sample_rate, observed at its finish:
// vllm_omni/metrics/modality.py observe_modality_at_finalize @d6240742;
// internal/engine's tts row).
const serverAudioFamily = "vllm_omni:audio_duration_s"

// checkServerAudio is part of check 9 for a tts run: the seconds of audio
// the records say each step's answers held, against the server's own
// account of what it produced. The server counts frames over its sample
// rate, the client decodes the same frames at the same rate, so where the
// server counted exactly the step's decodable answers, the two sums agree
// within a millisecond a request and 0.1 % (FAIL: the records' audio
// seconds were edited; RTFx and seconds per character rest on them). A
// target that does not expose the family, or a count that differs (other
// traffic, a stream cut before its end), is not held.
func checkServerAudio(c *Check, ev *evidence, k stepKey, recs []schemas.Record, no *notObserved) {
	if task.NameOf(ev.run) != task.TTS.Name() {
		return
	}
	from := k.scrapeFile(claims.ScrapeMeasure)
	measured := func(r schemas.Record) bool { return r.Phase == schemas.PhaseMeasure }
	if !ev.f.has(from) {
		from, measured = k.scrapeFile("before"), func(schemas.Record) bool { return true }
	}
	before, okb, errb := readScrape(ev, from)
	after, oka, erra := readScrape(ev, k.scrapeFile(claims.ScrapeAfter))
	if !okb || !oka || errb != nil || erra != nil {
		return
	}
	hb, ok1 := before.histogram(serverAudioFamily, nil)
	ha, ok2 := after.histogram(serverAudioFamily, nil)
	if !ok1 || !ok2 {
		return
	}
	n, sum := 0, 0.0
	for _, r := range recs {
		if !measured(r) || r.Status != 200 {
			continue
		}
		if a, err := task.ParseAudio(r.Text); err == nil && a.SampleRate > 0 {
			n++
			sum += a.Seconds
		}
	}
	served, count := ha.sum-hb.sum, ha.count-hb.count
	if count != float64(n) {
		no.add("%s: the server's %s counted %g answers, the records hold %d decodable ones: their seconds are not held to it", k, serverAudioFamily, count, n)
		return
	}
	if slack := 0.001*float64(n) + 0.001*served; math.Abs(sum-served) > slack {
		c.failf(k.scrapeFile(claims.ScrapeAfter), nil, "%s: the records say the %d answers held %.3f s of audio, the server's own %s says it produced %.3f s (%+.1f %%): the records' audio seconds were edited",
			k, n, sum, serverAudioFamily, served, 100*(sum-served)/max(served, 1e-9))
	}
}
