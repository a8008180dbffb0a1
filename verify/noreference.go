package verify

import "fmt"

// checkNoInput (check 5) holds the records of run.json's items without a
// reference clip (schemas.PerturbNoReference: a tts named voice) to the
// runner's rule for them: nothing to perturb, so every request sent the
// item unchanged (variant, sample_index and byte_offset -1, input_sha256
// "": no input was sent). It then warns, with its own kind, how many
// items and requests were sent so: a cache keyed by the text and voice
// could answer them, and whether one did is not observed. It returns
// how many records it held.
func checkNoInput(c *Check, ev *evidence, clips map[string]*clipData) (requests int) {
	for _, f := range ev.recFiles {
		for i, r := range ev.records[f] {
			cd, ok := clips[r.Clip]
			if !ok || !cd.clip.NoInput() {
				continue
			}
			requests++
			if r.Variant != -1 || r.SampleIndex != -1 || r.ByteOffset != -1 || r.InputSHA256 != "" {
				c.add(Finding{Status: Fail, Kind: KindVariant, Path: f, Line: i + 1, Reason: fmt.Sprintf(
					"clip %s has no reference clip (run.json: perturb %q), so nothing of it can be perturbed, yet the record says variant %d, sample_index %d, byte_offset %d, input_sha256 %q (want -1, -1, -1, \"\")",
					r.Clip, cd.clip.Perturb, r.Variant, r.SampleIndex, r.ByteOffset, short(r.InputSHA256))})
			}
		}
	}
	n := 0
	for _, cd := range clips {
		if cd.clip.NoInput() {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	c.warnKindf(KindNoReference, "run.json", "%d of %d corpus items have no reference clip (a named voice): their %d requests had nothing to perturb and were sent unchanged every time, so a cache keyed by the text and voice could answer repeats; whether one did is not observed. Give each item a ref_audio to send per-request variants that defeat reference caches; the cache probe (identical vs variant requests) measures reference caches, and a text cache answers both of its halves alike",
		n, len(ev.run.Corpus), requests)
	return requests
}
