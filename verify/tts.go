package verify

import (
	"fmt"
	"math"

	"github.com/benchseal/benchseal/internal/task"
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
