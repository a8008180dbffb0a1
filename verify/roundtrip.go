package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkRoundTrip is check 7's part for a tts run's round trip (run
// --asr-target, internal/roundtrip): what run.json's protocol.round_trip
// asks for was done as the protocol says. Every roundtrip/<target>.jsonl
// line names a measured successful answer of its target, carries that
// answer's audio (the SHA-256 its record's output names) and was sent
// after the last request of the sweep and its probes ended, so no
// transcription shared a timed window; roundtrip/asr.json's counts are
// its lines'. A measured success that was not sent is a WARN when
// asr.json says why answers were skipped (an interrupt) and a FAIL
// otherwise. Transcripts themselves are the ASR server's word: verify
// holds claims.json's round-trip WER to them (check 6), it cannot hear
// the audio again without it.
func checkRoundTrip(c *Check, ev *evidence, no *notObserved) string {
	rt := ev.run.Protocol.RoundTrip
	has := ev.f.has(schemas.RoundTripASRFile)
	switch {
	case rt == nil && (has || len(ev.tel.Heard) > 0):
		c.failKindf(KindRoundTrip, schemas.RoundTripASRFile, "round-trip transcripts are sealed, but run.json names no round trip (protocol.round_trip)")
		return ""
	case rt == nil:
		return ""
	case !has:
		no.add("the round trip through %s (run.json names it; %s is missing: the run stopped before it ended)", rt.ASR, schemas.RoundTripASRFile)
		return ""
	}
	var sum schemas.RoundTripASR
	b, err := ev.f.read(schemas.RoundTripASRFile)
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		c.failKindf(KindRoundTrip, schemas.RoundTripASRFile, "unreadable: %v", err)
		return ""
	}
	if sum.Name != rt.ASR || sum.Model != rt.Model {
		c.failKindf(KindRoundTrip, schemas.RoundTripASRFile, "names ASR server %q model %q; run.json's round_trip %q model %q", sum.Name, sum.Model, rt.ASR, rt.Model)
	}
	succ, sweepEnd := roundTripAnswers(ev)
	// A discarded attempt's answers (attempts.go) were handed to the
	// round trip as they came, before the runner judged the step: heard,
	// counted in asr.json, scored by no claim.
	disc := map[string]schemas.Record{}
	for _, f := range ev.attemptFiles {
		for _, r := range ev.attemptRecs[f] {
			sweepEnd = max(sweepEnd, r.EndNs)
			if r.OK && r.Phase == schemas.PhaseMeasure {
				disc[r.RequestID] = r
			}
		}
	}
	sent, heard := map[string]int{}, map[string]int{}
	discSent, discHeard := map[string]int{}, map[string]int{}
	for _, id := range slices.Sorted(maps.Keys(ev.tel.Heard)) {
		h := ev.tel.Heard[id]
		r, ok := succ[id]
		if d, isDisc := disc[id]; !ok && isDisc {
			r, ok = d, true
			discSent[r.Target]++
		}
		path := schemas.RoundTripPath(r.Target)
		switch {
		case !ok:
			c.failKindf(KindRoundTrip, schemas.RoundTripDir, "request %s was heard, but it is no measured successful answer of the run", id)
			continue
		case h.AudioSHA256 != audioSHA(r):
			c.failKindf(KindRoundTrip, path, "request %s: the audio heard (%s) is not the answer its record names (%s)", id, short(h.AudioSHA256), short(audioSHA(r)))
		case h.StartNs < sweepEnd:
			c.failKindf(KindRoundTrip, path, "request %s was sent to the ASR server at %s, before the sweep's last request ended (%s): the round trip shared a timed window", id, ms(h.StartNs), ms(sweepEnd))
		case h.EndNs < h.StartNs:
			c.failKindf(KindRoundTrip, path, "request %s: the transcription ended before it started", id)
		}
		sent[r.Target]++
		if h.Status == 200 && h.Error == "" {
			heard[r.Target]++
			if _, isDisc := disc[id]; isDisc {
				discHeard[r.Target]++
			}
		}
	}
	for _, t := range ev.run.Targets {
		if sent[t.Name] != sum.Sent[t.Name] || heard[t.Name] != sum.Heard[t.Name] {
			c.failKindf(KindRoundTrip, schemas.RoundTripASRFile, "%s: %d sent and %d heard, but %s has %d lines, %d heard",
				t.Name, sum.Sent[t.Name], sum.Heard[t.Name], schemas.RoundTripPath(t.Name), sent[t.Name], heard[t.Name])
		}
	}
	total, nSent, nHeard := len(succ), 0, 0
	for _, t := range ev.run.Targets {
		nSent, nHeard = nSent+sent[t.Name]-discSent[t.Name], nHeard+heard[t.Name]-discHeard[t.Name]
	}
	if nSent < total {
		if len(sum.Skipped) > 0 {
			c.warnKindf(KindRoundTrip, schemas.RoundTripASRFile, "%d of %d measured answers were not sent to %s (%s): the round-trip WER covers the rest", total-nSent, total, rt.ASR, sum.Skipped[0])
		} else {
			c.failKindf(KindRoundTrip, schemas.RoundTripASRFile, "%d of %d measured answers were not sent to %s, and asr.json says of none why", total-nSent, total, rt.ASR)
		}
	}
	if nHeard < nSent {
		no.add("what %s heard of %d of %d answers sent (its transcription failed: those are not scored)", rt.ASR, nSent-nHeard, nSent)
	}
	return fmt.Sprintf("; round trip: %d of %d measured answers heard by %s after the sweep", nHeard, total, rt.ASR)
}

// roundTripAnswers are the measured successful records by request id,
// and the last end of any record (the sweep's and its probes').
func roundTripAnswers(ev *evidence) (map[string]schemas.Record, int64) {
	out := map[string]schemas.Record{}
	var end int64
	for _, f := range ev.recFiles {
		for _, r := range ev.records[f] {
			end = max(end, r.EndNs)
			if r.OK && r.Phase == schemas.PhaseMeasure {
				out[r.RequestID] = r
			}
		}
	}
	return out, end
}

// audioSHA is the SHA-256 a tts record's output names, "" for none.
func audioSHA(r schemas.Record) string {
	a, err := task.ParseAudio(r.Text)
	if err != nil {
		return ""
	}
	return a.SHA256
}

func (c *Check) failKindf(kind Kind, path string, format string, args ...any) {
	c.add(Finding{Status: Fail, Kind: kind, Path: path, Reason: fmt.Sprintf(format, args...)})
}
