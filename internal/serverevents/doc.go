// Package serverevents turns the engines' own per-request evidence into
// per-request stage times (schemas.RequestStages), joined to benchseal's
// records by request id: vLLM's OpenTelemetry spans, received by an OTLP
// listener benchseal runs, and SGLang-Omni's request-profiler event files.
//
// # Contract
//
//   - A time the evidence does not give is nil, never 0. A line is made for
//     every request the evidence names; RequestID is set only when a record
//     of the step carries the id (Join).
//   - Evidence is kept as received (OTLP export bodies, event files) so that
//     a verifier re-derives every line from it with the same functions
//     (DecodeOTLP, ParseEvents, Join).
//   - Nothing here compares a server's clock with benchseal's: only
//     durations the server measured on its own clock are used.
//
// # vLLM: OpenTelemetry spans
//
// Read in vllm-project/vllm (file @ commit):
//
//   - vllm/tracing/otel.py @40eeb0c5: the exporter is chosen by
//     OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, default "grpc"; "http/protobuf"
//     is the other choice. The endpoint is --otlp-traces-endpoint. Receiver
//     serves both on one address: gRPC (the collector's TraceService, over
//     HTTP/2 without TLS, as the exporter's insecure=True speaks it) and
//     HTTP/protobuf POST /v1/traces (point the endpoint at
//     http://ADDR/v1/traces then).
//   - vllm/v1/engine/output_processor.py @d0782260 do_tracing: one span
//     "llm_request" (kind SERVER, start = arrival time) per finished request
//     when tracing is enabled, whatever its trace headers (none: a root
//     span). Attributes (names in vllm/tracing/utils.py @0bf3270f
//     SpanAttributes), all seconds: gen_ai.latency.time_in_queue
//     (scheduled - queued), gen_ai.latency.time_in_model_prefill (first
//     token - scheduled), gen_ai.latency.time_in_model_decode (last token -
//     first token), gen_ai.latency.time_in_model_inference (last token -
//     scheduled), gen_ai.latency.time_to_first_token, gen_ai.latency.e2e
//     (iteration timestamp - arrival); gen_ai.request.id is the request's
//     external id.
//   - entrypoints/openai speech_to_text (serving): request_id =
//     f"{task_type}-{_base_request_id(raw_request)}", the X-Request-Id
//     header when given, so a transcription's span carries
//     "transcribe-<X-Request-Id>". DecodeOTLP finds benchseal's id
//     (bs-<16 hex>-c<C>-r<R>-s<seq>) inside it, whatever prefix or chunk
//     suffix surrounds it; a request vLLM split into chunks gives several
//     spans, of which only the longest e2e is kept (Parts says how many).
//
// # SGLang-Omni: the request profiler
//
// Read in sgl-project/sglang-omni:
//
//   - sglang_omni/serve/launcher.py @03c8f159 _mount_profiler_routes:
//     POST /start_request_profile {"run_id", "event_dir"} answers
//     {"run_id", "event_dir"}; event_dir defaults to
//     $SGLANG_TORCH_PROFILER_DIR/<run_id>/events and is required (400)
//     without it. POST /stop_request_profile {"run_id"} answers {"run_id"}.
//     The stop is broadcast to the stage processes, which close their files
//     shortly after: benchseal reads the files once the sweep is over.
//   - sglang_omni/profiler/event_recorder.py @30e3cee2: each process appends
//     to <event_dir>/events_<stage>_<pid>.jsonl lines {request_id, stage,
//     event_name, timestamp_ns, run_id, pid, metadata}; timestamp_ns is
//     time.time_ns() unless the caller passes one; model_path_* events add
//     metadata.monotonic_ns (CLOCK_MONOTONIC). Only differences of
//     timestamp_ns within one request are used. The file is opened for
//     appending and every event carries the run_id its session was started
//     with: the run_id, not the file, tells sessions apart. benchseal's
//     run_id (RunID) is unique to the run (its started_at to the ns) and
//     the step; only its events are joined (OfRun), and a file in the
//     event directory without one of them is not copied (CopyEvents'
//     stale: an earlier run's, e.g. of a relaunched server with another
//     pid).
//   - serve/transcriptions.py @0ac0a86e: request_id =
//     f"transcription-{uuid4()}": random, so ids never repeat across runs.
//   - Event names (benchmarks and docs in the index; the scheduler emits
//     scheduler_queue_enter in omni_scheduler.py): coordinator
//     request_admission, terminal_response; per stage stage_input_received,
//     scheduler_request_build_start/_end, scheduler_queue_enter,
//     scheduler_prefill_start, scheduler_prefill_end, scheduler_first_emit,
//     stage_complete. Intervals: queue = queue_enter -> prefill_start,
//     prefill (first forward) = prefill_start -> first_emit, decode =
//     first_emit -> stage_complete, build = build_start -> build_end, e2e =
//     request_admission -> terminal_response.
//   - sglang_omni/serve/transcriptions.py @0ac0a86e: the request id is
//     "transcription-<uuid4>", made by the server whatever the request
//     says; speech_to_text.py @070fc3b5 returns it only in the streamed
//     answer's X-Request-Id header (non-streamed answers are a bare
//     JSONResponse/PlainTextResponse). Non-streamed requests' events are
//     therefore not joinable: they appear as lines without RequestID.
//     Long audio is split into "<id>-chunk-<n>" requests; those are folded
//     into their parent id.
//
// # Imports
//
// It owns reading the engines' per-request evidence and joining it to
// records. Must never import: internal/bench, internal/sim, verify. Why:
// verify re-derives the joined lines with it, and the simulator stands in
// for the engines without sharing the reader's code.
package serverevents
