// Command loadcmp is issue 7's side-by-side benchmark: it proves that
// benchseal's runner is not the bottleneck of the numbers it publishes, and
// measures what sealing and verifying evidence costs.
//
//	cd tools                     # its own module: benchseal's go.mod lists no vegeta
//	go run ./loadcmp             # full run, a few minutes
//	go run ./loadcmp -quick      # smoke run, seconds
//	go run ./loadcmp -lateness   # open-loop send lateness, benchseal vs vegeta -rate (lateness.go)
//
// # Load generators
//
// A null transcription server (answers {"text":"ok"} as soon as it has read
// the whole request) runs as its own process, and so does each client, so
// that a client's CPU time (user+system from the child's rusage) is its
// own. At every concurrency C the clients run one after the other, in the
// order benchseal, vegeta, Python (interleaved: the next level starts only
// when all three are done), each sending C warm-up requests and then the
// same N measured requests of the same multipart/form-data shape (file +
// model) with the same 6.48 s, 16 kHz, 16-bit mono clip:
//
//   - benchseal: internal/bench.Run with one target, one level, one repeat,
//     writing a full run directory (every request a distinct 1-LSB variant,
//     hashed, recorded raw);
//   - vegeta (github.com/tsenart/vegeta/v12/lib) in closed loop: C workers
//     and at most C, keep-alive, C connections, a pacer that never waits and
//     stops after the N-th hit, the same body every time;
//   - tools/scripts/aiohttp_client.py, written like the published asyncio
//     benchmark clients: C worker tasks sharing one aiohttp.ClientSession,
//     aiohttp.FormData per request, time.perf_counter around each.
//
// Throughput is successful requests over the window from the first
// measured start to the last measured end (benchseal's own definition);
// every client's p50/p99 goes through internal/claims.Percentile. Peak
// in-flight is counted by the server (handlers running at once, reset
// before every client), so no client grades itself.
//
// # Evidence
//
// Run directories of about 100 MB and 1 GB (noise WAV clips in inputs/,
// which barely compress, plus JSONL records) are sealed twice each with a
// fixed ECDSA key in child processes (the two bundles must be byte-identical)
// and read back through bundle.Open, Verify and CheckSubjects. MB/s counts
// run-directory bytes; the reference limits are SHA-256 and zstd
// (bundle's level, one goroutine) measured in the same run.
//
// Client CPU is each Go client's own getrusage at the end of its work
// (benchseal: bench.Run returned, claims.json written; vegeta: its last
// result), so loadcmp's reading of benchseal's records for the table is
// not counted; the child's whole rusage is printed beside it.
//
// Every round (stderr) and every lateness row says the host's CPU steal
// while it ran, from /proc/stat (steal.go): on a shared VM the timing
// tails follow the neighbours, which the load average does not show.
//
// loadcmp prints PASS or MISS for every target of issues 7 and 43 (req/s
// and client CPU per request against vegeta, in paired rounds; with
// -lateness, the constant pacer's p99 at 1,000 and 4,000 req/s); with
// -strict a MISS makes it exit 1.
package main
