// Package engine is the one table of what benchseal knows about the
// serving engines it measures: vLLM, vLLM-Omni, SGLang-Omni and SGLang.
// Each engine is one Engine row holding its endpoints, response and error
// shapes, stream events, /metrics names (request counters, cache
// counters, histograms, and the caches no counter reports), knob sources
// (served self-description paths and launch flags, and the settings that
// change outcomes), how one transcription becomes several engine
// requests (Chunking), shedding and audio-refusal answers and /v1/models
// owned_by, every group of facts with the engine source (repository
// file@commit) it was read from; where two sources disagree on which is
// newer, the row says so. Shed and AudioRefused tell those answers apart
// from other errors, by value from the table.
//
// What an engine does per task (a request kind of internal/task) is its
// Tasks rows (tasks.go): the route it serves the task on, the shape of
// its streams, and, where the task needs them, the task's own facts, its
// own shedding and whether the engine meters it at all. An engine whose
// /metrics families are per route (Metrics.RouteLabel: SGLang-Omni's HTTP
// middleware counts every route) is read filtered by the run's task's
// route (RequestCountersFor, StageFamiliesFor), and not at all for a task
// it has no row for or whose row is Unmetered; the package-level
// RequestCounters and StageFamilies are ASR's. An engine whose releases
// may expose another metrics design lists its counters in
// Metrics.OtherRequests (SGLang-Omni's sglang_omni:asr_requests_total,
// whose terminal status values StatusOK, StatusShed, StatusFailed and
// StatusCancelled name), and a family of one task only (Task) is read
// without the route filter, for that task's runs. The metrics path
// (/metrics) and the self-description paths (Knobs.Served) are the same
// for every task, so they are not per task. Every engine has an ASR row;
// vLLM-Omni and SGLang-Omni also have text-to-speech rows (tts.go: their
// /v1/audio/speech fields, stream shapes, caches, errors and metrics) and
// audio chat rows (chat.go: their /v1/chat/completions content-part
// shapes, stream chunks, usage and errors).
//
// Shedding says how an engine counts its queue bound (InFlight: vLLM's
// --max-num-queued-reqs caps running and waiting together) and any
// second bound (TokensFlag). The simulator's own settings, published in
// its /v1/models (SimulatorSettingsField, SimSettings), are compared as
// knobs; a run compares its task's RequestKnobsFor too (tts:
// SpeechKnobKeys), a table by task.
//
// The simulator's personas (internal/sim), fingerprint capture and knobs
// (internal/fingerprint), the claims (internal/claims) and verify's
// fairness and counter checks read the table by value; none decides
// behaviour by an if on an engine's name. The runner does not know which
// engine it talks to: it reads answers by their shape through
// internal/task, whose tests decode every row's shapes. A new engine is a
// new row in engines.go (and its persona, if the sim is to imitate it);
// engine_test.go fails when a row leaves a fact unfilled or without a
// source, so a missing fact is a test failure, never a silent fallback to
// vLLM.
//
// This package holds facts, not behaviour: it imports nothing of
// benchseal (only the standard library), so every package may import it,
// schemas included, without a cycle.
package engine
