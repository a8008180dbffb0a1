// Package schedule derives an open-loop level's arrival schedule: the
// planned send offset of every request, from the run's seed, the offered
// rate R (requests per second), the burstiness k and the level's repeat.
// It is pure (no clock, no global state) so that the runner that sends
// and the verifier that checks derive the same offsets, and so that
// another implementation can re-derive them from run.json alone.
//
// # The algorithm (version 1)
//
// As vLLM's bench serve (vllm/benchmarks/serve.py@009e6d4a, get_request):
// N gaps g₁…g_N are drawn from a gamma distribution of shape k and scale
// 1/(R·k) (mean 1/R; k = 1 is a Poisson process, k < 1 burstier, k > 1
// more even, k = +Inf constant gaps of exactly 1/R); the planned offsets
// are their running sums t_i = g₁+…+g_i (the first request is planned one
// gap after the level's start), rescaled by (N/R)/t_N so that the last
// arrival lands at exactly N/R seconds; each offset is rounded to the
// nearest nanosecond (math.Round of seconds·1e9).
//
// The random stream is math/rand/v2's ChaCha8 (the C2SP chacha8rand
// generator), keyed by SHA-256 of the 64 bytes
//
//	"benchseal/schedule/v1\x00\x00\x00" (24 bytes) ‖ seed ‖ R ‖ k ‖ repeat ‖ N
//
// where seed, repeat and N are unsigned 64-bit little-endian integers and
// R and k their IEEE-754 float64 bits, little-endian (k = +Inf: no stream
// is drawn). Every target of a repeat gets the same schedule, so targets
// are offered the same arrivals; repeats get different ones.
//
// From the stream's Uint64 values x:
//
//	U()  = ((x >> 11) + 0.5) · 2⁻⁵³              uniform on (0,1), never 0 or 1
//	Z()  = √(−2·ln U₁) · cos(2π·U₂)             one standard normal (Box–Muller,
//	                                             two U's in that order, the sine unused)
//	G(k), k ≥ 1: Marsaglia–Tsang (2000): d = k − 1/3, c = 1/√(9d);
//	      repeat { z = Z(); v = (1 + c·z)³; if v ≤ 0 try again;
//	               u = U(); if ln u < z²/2 + d − d·v + d·ln v return d·v }
//	G(k), k < 1:  g = G(k+1); u = U(); return g · u^(1/k)
//	gap  = G(k) / (R·k)
//
// The draws are taken in request order, gap by gap. Everything is float64
// with Go's math.Log, math.Cos, math.Sqrt and math.Pow; an implementation
// with another libm may differ in the last bit of a gap and so, rarely, by
// a nanosecond in an offset, which is why verify compares offsets within
// Tolerance.
//
// # The ramp (version 2)
//
// With a warm-up ramp (run --ramp-up; Ramp, RampOffsets) a level's
// warm-up phase arrives at a rate λ(t) that climbs from the ramp's start
// rate S to the level's rate R over its duration D:
//
//	linear:      λ(t) = S + (R−S)·t/D       Λ(t) = S·t + (R−S)·t²/(2D)
//	exponential: λ(t) = S·(R/S)^(t/D)       Λ(t) = S·D·((R/S)^(t/D) − 1)/ln(R/S)
//
// It sends n = round(Λ(D)) warm-ups (at least 1), run.json's warmup. The
// offsets come by time rescaling: unit-rate arrivals u_i = g₁+…+g_i, the
// gaps g = G(k)/k drawn as above from a ChaCha8 stream keyed by SHA-256 of
//
//	"benchseal/schedule/ramp2\x00" (25 bytes) ‖ seed ‖ R ‖ k ‖ repeat ‖ n ‖ S ‖ D ‖ strategy
//
// (D in nanoseconds as an unsigned 64-bit little-endian integer, S as
// float64 bits, the strategy's name in ASCII; k = +Inf: u_i = i and no
// stream), rescaled by Λ(D)/u_n so that the last lands at D, each mapped
// through Λ⁻¹ (linear: t = 2u/(S + √(S² + 2(R−S)·u/D)); exponential:
// t = D·ln(1 + u·ln(R/S)/(S·D))/ln(R/S), with math.Log1p) and rounded to
// the nanosecond. The measured phase then follows the level's schedule of
// version 1, unchanged, so a run recorded with version 1 derives the same
// offsets. vLLM's bench serve ramps by request index instead (each gap
// drawn at the rate of progress i/(N−1), over the whole run and in place
// of a fixed rate); benchseal's arrivals follow the rate at their time,
// and only its warm-ups ramp, so the measured phase offers one rate.
package schedule
