package main

// How `run` turns --otlp-listen, --otlp-wait and --server-events into the
// session's ServerEvents.

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
)

const serverEventsHelp = `Per-request server evidence (the server as a second witness; verify's
server-events check): --otlp-listen ADDR receives vLLM's OpenTelemetry spans
(gRPC and HTTP/protobuf on one address): start vLLM with
--otlp-traces-endpoint http://ADDR (gRPC, vLLM's default), or with
OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf and
--otlp-traces-endpoint http://ADDR/v1/traces. --server-events NAME=DIR has
SGLang-Omni's request profiler (POST /start_request_profile around every
measured phase) write its event files into DIR, a directory both the server
and this host see; a server started with --launch gets one beside --out.
SGLang-Omni returns its request id only on streamed answers: without
--stream its events cannot be joined to the records. The joined per-request
stage times go to servers/NAME/stages/c<C>-r<R>.jsonl, the spans and event
files as received to servers/NAME/otlp/ and servers/NAME/events/.`

// parseServerEvents checks the server-events flags against the targets.
func parseServerEvents(f *runFlags, targets []bench.Target) (session.ServerEvents, error) {
	ev := session.ServerEvents{OTLPListen: f.otlpListen, OTLPWait: f.otlpWait, ProfilerDirs: map[string]string{}}
	if f.otlpWait < 0 {
		return ev, usageErrorf("--otlp-wait %v: must not be negative", f.otlpWait)
	}
	urls := map[string]string{}
	for _, t := range targets {
		urls[t.Name] = t.URL
	}
	for _, kv := range f.serverEvents {
		if n, d, ok := strings.Cut(kv, "="); !ok || n == "" || d == "" {
			return ev, usageErrorf("--server-events %q: want NAME=DIR (a target's name, and the directory its SGLang-Omni request profiler writes into)", kv)
		}
		name, dir, err := targetPair("server-events", kv, urls)
		if err != nil {
			return ev, err
		}
		if _, twice := ev.ProfilerDirs[name]; twice {
			return ev, usageErrorf("--server-events %s is given twice", name)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return ev, withHint(err, "--server-events %s: give a directory this host can create and the server can write", name)
		}
		ev.ProfilerDirs[name] = dir
	}
	return ev, nil
}

// otlpListenError adds a hint to a session start that failed because
// --otlp-listen's port is taken.
func otlpListenError(err error, addr string) error {
	if !errors.Is(err, syscall.EADDRINUSE) || addr == "" {
		return err
	}
	return withHint(err, "something already listens on %s (an OpenTelemetry collector, or an earlier benchseal run?): stop it, or give --otlp-listen another port and vLLM's --otlp-traces-endpoint the same", addr)
}
