// Package seedtts applies the SGLang-Omni seed client's definitions
// (benchmark_asr_seedtts.py) to benchseal's records of an ASR run, for
// --compat seedtts of run, verify and report: its corpus WER, per-sample WER,
// RTF and audio seconds (which count a WAV's bytes, not its frames),
// beside benchseal's own claims (internal/claims), which it never
// replaces. It is the ASR task's (internal/task) rule set for that peer;
// it imports internal/claims for the exact percentile and the measured
// window, so it lives below internal/task, not in it.
//
// # Imports
//
// It owns the seed client's definitions. Must never import:
// internal/bench, verify, internal/report. Why: verify and the report
// print its figures from the records alone.
package seedtts
