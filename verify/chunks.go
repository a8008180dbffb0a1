package verify

import (
	"slices"
	"strconv"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// One HTTP request may be several engine requests (internal/engine's
// Chunking): vLLM splits audio longer than its max_audio_clip_s into
// chunks and, without a language, may add a language detection, each
// counted by its request counter and observed by its stage histograms.
// Those counts are then held to a bound from the records' audio lengths,
// the row's limits and the run's model and language field, never to one
// per record: an honest run of long
// clips is not "other traffic". The successes still bound them from
// below (every success is at least one engine request).

// engineBound is what a step's records may have become on an engine: hi
// engine requests at most, their client latencies weighted the same
// (latencyS: each engine request of a record lasts no longer than the
// record), and whether any record may have been split (split).
type engineBound struct {
	hi       int
	latencyS float64
	split    bool
	limit    string // the limits it was bounded with, for a finding
}

// boundOf bounds recs (those keep selects) on eng's row, for target of
// the run (its language field and the protocol's stream). A row whose
// counters count HTTP requests gives one per record.
func boundOf(ev *evidence, eng *engine.Engine, target string, recs []schemas.Record, keep func(schemas.Record) bool) engineBound {
	var c engine.Chunking
	if eng != nil && eng.Transcription.Chunking.Counted {
		c = eng.Transcription.Chunking
	}
	stream, detect := false, false
	if ev.run != nil {
		stream = ev.run.Protocol.Stream
		if i := slices.IndexFunc(ev.run.Targets, func(t schemas.Target) bool { return t.Name == target }); i >= 0 {
			t := ev.run.Targets[i]
			detect = c.DetectsLanguage(t.Model, t.RequestFields["language"] != "")
		}
	}
	var b engineBound
	for _, r := range recs {
		if keep != nil && !keep(r) {
			continue
		}
		_, hi := c.EngineRequests(r.AudioSeconds, stream, detect)
		b.hi += hi
		b.latencyS += float64(hi) * float64(r.EndNs-r.StartNs) / 1e9
		b.split = b.split || hi > 1
	}
	if b.split {
		b.limit = eng.Name + " splits audio over " + ftoa(c.ClipS) + " s into chunks"
		if detect {
			b.limit += " and detects the language of a request without one in one more"
		}
	}
	return b
}

// engineOfFamily is the first engine of the table whose stage families
// include family.
func engineOfFamily(family string) *engine.Engine {
	for _, e := range engine.All() {
		if slices.ContainsFunc(e.Metrics.Stages, func(f engine.StageFamily) bool { return f.Family == family }) {
			return e
		}
	}
	return nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
