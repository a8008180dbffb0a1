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

// boundOf bounds recs (those keep selects) of step k on eng's row (its
// language field and the protocol's stream). A row whose counters count
// HTTP requests gives one per record. Where the server's own spans of
// the step name a record (servers/<t>/stages/, vLLM's OTLP: one span per
// engine request, <id>-<i> and <id>-lang_detect folded into the record's
// line as its parts), that record counts as many as the server shows.
func boundOf(ev *evidence, eng *engine.Engine, k stepKey, recs []schemas.Record, keep func(schemas.Record) bool) engineBound {
	target := k.target
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
	var parts map[string]int
	if c.Counted {
		parts = spanParts(ev, k)
	}
	var b engineBound
	for _, r := range recs {
		if keep != nil && !keep(r) {
			continue
		}
		_, hi := c.EngineRequests(r.Seconds, stream, detect)
		if n, ok := parts[r.RequestID]; ok && n > 0 {
			hi = n
		}
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

// spanParts are the parts of each record's line in step k's stages file
// when it was made from spans (vLLM's OTLP), by request id; nil when the
// step has none or it does not decode (check 10 says why).
func spanParts(ev *evidence, k stepKey) map[string]int {
	name := schemas.StagesPath(k.target, k.concurrency, k.repeat)
	if !ev.f.has(name) {
		return nil
	}
	b, err := ev.f.read(name)
	if err != nil {
		return nil
	}
	lines, err := decodeStages(b)
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, l := range lines {
		if l.Source == schemas.SourceOTLP && l.RequestID != "" {
			out[l.RequestID] = l.Parts
		}
	}
	return out
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
