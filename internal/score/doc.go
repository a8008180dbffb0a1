// Package score computes word and character error rates: the one place
// benchseal normalises transcripts, aligns them and totals the errors, so
// that the runner, verify and `benchseal score` agree to the unit.
//
// Normalizers (named in run.json, schemas.Scoring.Normalizer):
//
//   - "whisper-en": the rules of OpenAI Whisper's EnglishTextNormalizer
//     (lower-case; [..], <..> and (..) spans removed; fillers hmm, mm, mhm,
//     mmm, uh, um removed; contractions and titles expanded; spelled-out
//     numbers to digits; commas inside numbers removed; symbols and
//     diacritics removed) and Whisper's own British-to-American spelling
//     table, english.json, embedded whole (spelling.go; MIT, notice in
//     LICENSE.whisper). Python's Unicode meaning of \b, \s, \d, str.split
//     and str.lower is kept.
//   - "basic": Whisper's BasicTextNormalizer with its defaults.
//   - "zh": full-width ASCII to half-width, punctuation, symbols and all
//     white space removed; units are characters, except that runs of ASCII
//     letters and digits stay whole words (as sclite -c NOASCII does).
//   - "none": the text split on white space, as is (case included).
//
// Aligners (schemas.Scoring.Aligner):
//
//   - "unit": unit-cost Levenshtein; S+D+I per utterance is the edit
//     distance, so corpus WER equals jiwer's.
//   - "sclite": NIST sclite's weights (correct 0, substitution 4, insertion
//     and deletion 3) and its tie rule; C/S/D/I totals equal the Sum row of
//     sclite -o rsum, checked against the real binary in the tests. sclite
//     folds case by default; here case is the normalizer's business (with
//     "none", totals equal sclite -s).
//
// The corpus rate is the sum of errors over the sum of reference units,
// never a mean of per-utterance rates. Failed requests (Pair.Failed) are
// left out and counted in Result.Excluded; with
// Options.FailuresAsDeletions they are scored as empty hypotheses, every
// reference unit a deletion, as sclite scores a missing hypothesis.
//
// Transcript files (ReadTranscripts) are sclite trn ("text (utt-id)") or
// JSONL ({"id", "text"}), UTF-8, ids unique.
//
// # Imports
//
// It owns normalizers, alignment (unit and sclite) and WER/CER. Must never
// import: internal/bench, internal/sim, verify. Why: scoring is a pure
// function of transcripts.
package score
