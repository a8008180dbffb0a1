// Package fingerprint records what a benchmark ran on and what the servers
// said, without ever writing a secret.
//
// It owns these documents (types and JSON Schemas in package schemas):
//
//	env/client.json     Client: the binary's SHA-256, version, Go version,
//	                    modules, platform and the redacted command line
//	env/host.json       Host: OS, kernel, CPU model and cores, memory, load at
//	                    start, hostname ("[REDACTED]" with --redact-host)
//	env/gpu.json        GPU: NVML driver, CUDA driver and NVML versions; per GPU
//	                    name, UUID, serial, PCI bus id, memory, clocks, power
//	                    limit, persistence, ECC, MIG and compute modes, processes
//	telemetry/gpu.jsonl, telemetry/host.jsonl
//	                    Sampler: one line per GPU or host sample, t_ns offsets
//	                    from the run's anchor like records; a host sample
//	                    carries benchseal's own CPU time (getrusage
//	                    RUSAGE_SELF, proc_cpu_ns) and its share of the CPUs
//	                    since the sample before (proc_cpu_pct) beside the
//	                    host's cpu_pct
//	telemetry/steps.jsonl, servers/<t>/metrics/c<C>-r<R>-{before,measure,after}.prom
//	                    Recorder: per level/repeat the window, the t_ns of the
//	                    samples taken at its edges (just before the first
//	                    measured request, just after the last), the target's
//	                    GPUs and its cache counters before and after, raw;
//	                    a discarded attempt's line (StepEndAttempt) says
//	                    attempt and discarded, and its scrapes move to
//	                    servers/<t>/metrics/attempts/c<C>-r<R>-a<k>-*.prom
//	telemetry/cache-probes.jsonl, servers/<t>/metrics/probe-1-{before,after}.prom
//	                    Recorder (ProbeStart, ProbeEnd): the cache counters
//	                    just before and just after a target's active cache
//	                    probe, raw
//	servers/<t>/probes-{before,after}.json
//	                    Capture: status and redacted body of each endpoint of
//	                    ProbePaths that answered
//	servers/<t>/launch.log, launch.json
//	                    Launch: each line of the server's stdout and stderr,
//	                    "<RFC 3339 UTC ns> <stdout|stderr|benchseal> <redacted line>"
//
// GPU data comes from NVML through NVIDIA's go-nvml (pkg/nvml; gpu_nvml.go,
// cgo on 64-bit Linux), which loads libnvidia-ml.so.1 when NVML is first
// initialised. A binary built with CGO_ENABLED=0 reports "NVML not built
// in (CGO_ENABLED=0)", and a host without libnvidia-ml says so in Reason;
// neither is an error. A field NVML does not support on a device is null
// rather than a failure; any other error is noted with the library's own
// text for it (nvmlErrorString) and its return code, e.g. "graphics
// processes: Insufficient Permissions (NVML return code 4)".
//
// Settling: engines count a request just after its answer left (vLLM's
// output handler records stats after handing the output over), so the
// Recorder's "measure" and "after" scrapes wait, up to
// DefaultSettleBound, until the engine's request counter
// (engine.RequestCounters) has grown by the successful requests the
// runner reported with Expect since the step's previous scrape; it keeps
// the scrape that showed them (or the last one that answered) and writes
// the wait into the step's line (settle). No request counter, no wait.
//
// Parsing: the Recorder parses only the families it reads (its
// Families: cache and request counters); Families.Lines is the one line
// filter, which internal/claims uses for the stage histograms too.
//
// Cache counters: CacheCounters reads vLLM's vllm:mm_cache_{hits,queries}_total
// and vllm:prefix_cache_{hits,queries}_total (and the older
// vllm:gpu_prefix_cache_*), and SGLang's sglang:cached_tokens_total from a
// /metrics scrape parsed by Prometheus's own text parser (the names are
// engine.CacheCounterNames).
//
// This package records and never summarises: gpu_util_*, gpu_*_peak,
// host_cpu_mean and cache_hits are computed only by internal/claims, from
// the samples and the raw counters written here.
//
// Redaction happens before anything is written, by Redact, RedactArgs,
// RedactJSON and LineRedactor; they err on the side of hiding too much.
// Two ways, both in Redact: by value, every value given to AddSecrets (the
// session gives it the API key, URL passwords, secret-named form fields and
// secret values of launch commands) is replaced wherever it appears, in its
// plain, JSON-escaped and URL-escaped forms, for the rest of the process;
// by pattern, what follows a secret's name (--api-key X, api_key: X,
// Bearer X, a URL's password) and prefixed tokens (hf_, sk-). A value
// shorter than MinSecretLen (8) is not replaced by value, since it would
// hide innocent text; AddSecrets returns it so the caller warns.
// ScrubSecrets replaces held values only, for text that must otherwise stay
// as it was (a record's transcript, scored after scrubbing).
//
// # NVML functions a driver may lack
//
// go-nvml links NVML's functions unresolved
// (-Wl,--unresolved-symbols=ignore-in-object-files) and the dynamic linker
// binds each at its first call, so a call to one the driver's library
// lacks ends the process ("symbol lookup error", exit 127;
// TestNVMLUnguardedCallEndsProcess). So every function below is looked up with
// Extensions().LookupSymbol before its first call, as NVIDIA's go-nvlib
// looks up nvmlDeviceGetMigMode (NVIDIA/go-nvlib, pkg/nvlib/device/device.go);
// one the library lacks leaves its field null with the note "not
// available in this driver" (a sampled reading the driver lacks is noted
// once, "temperature samples: not available in this driver").
//
//	function                            first in       source
//	nvmlDeviceGetTemperatureV           R570 (12.8)    not in go-nvml's nvml.h of NVML 12.6 (7ec3ff8), in 12.8's (f420a32)
//	nvmlDeviceGetMigMode                R450 (11.0)    MIG came with Ampere (A100), whose first driver branch is
//	                                                   R450 (NVIDIA's R450 release notes, MIG user guide)
//	nvmlDeviceGetTemperature            R450 or older  deprecated as of NVML 13.0 (DEPRECATED(13.0) in nvml.h);
//	                                                   read only where nvmlDeviceGetTemperatureV is missing
//	nvmlSystemGetCudaDriverVersion_v2,  R450 or older  in the first nvml.h go-nvml carries (NVML 11.0, 56658d6)
//	nvmlSystemGetCudaDriverVersion (its fall-back), nvmlSystemGetDriverVersion,
//	nvmlSystemGetNVMLVersion, nvmlDeviceGetName, nvmlDeviceGetUUID,
//	nvmlDeviceGetSerial, nvmlDeviceGetMemoryInfo, nvmlDeviceGetClockInfo,
//	nvmlDeviceGetMaxClockInfo, nvmlDeviceGetPowerManagementLimit,
//	nvmlDeviceGetPersistenceMode, nvmlDeviceGetEccMode,
//	nvmlDeviceGetComputeMode, nvmlDeviceGetUtilizationRates,
//	nvmlDeviceGetPowerUsage
//
// Versions are driver branches with the NVML API version of the header in
// parentheses; the commits are NVIDIA/go-nvml's, whose nvml.h history starts
// at NVML 11.0, so "R450 or older" means no later than R450. Not looked up
// again: nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex,
// nvmlDeviceGetPciInfo and nvmlDevice{Compute,Graphics}RunningProcesses,
// whose _v2/_v3 forms go-nvml itself looks up when it loads the library,
// falling back to the first form (pkg/nvml/lib.go, updateVersionedSymbols),
// and nvmlErrorString, which every NVML has. nvmlShutdown is never called:
// NVML, once initialised, stays so for the rest of the process, shared by
// the fingerprint and the sampler.
//
// A process uses one NVML library: go-nvml's C calls are bound to the
// first library loaded that defines them (internal/nvmlstub says how the
// tests live with that).
//
// # Imports
//
// It owns the client, host and GPU fingerprints, telemetry sampling, server
// capture, launch and redaction. Must never import: internal/bench,
// internal/sim, verify. Why: the runner and the verifier read its facts; it
// depends on neither.
package fingerprint
