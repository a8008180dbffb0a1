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
package schedule
