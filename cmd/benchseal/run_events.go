package main

// How `run` and `replay` turn --otlp-listen, --otlp-wait and
// --server-events into the session's ServerEvents.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/spf13/pflag"
)

// eventsFlags are the server-events flags of run and replay.
type eventsFlags struct {
	otlpListen   string        // --otlp-listen
	otlpWait     time.Duration // --otlp-wait
	serverEvents []string      // --server-events NAME=DIR
}

func addEventsFlags(fl *pflag.FlagSet, f *eventsFlags) {
	fl.StringVar(&f.otlpListen, "otlp-listen", "", "receive vLLM's OpenTelemetry spans at `ADDR` (host:port, gRPC and HTTP/protobuf); give vLLM --otlp-traces-endpoint http://ADDR")
	fl.DurationVar(&f.otlpWait, "otlp-wait", session.DefaultOTLPWait, "with --otlp-listen: how long to wait after the sweep for spans the servers still buffer")
	fl.StringArrayVar(&f.serverEvents, "server-events", nil, "have SGLang-Omni's request profiler write events into a directory, as NAME=DIR (seen by the server and this host)")
}

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
func parseServerEvents(f *eventsFlags, targets []bench.Target) (session.ServerEvents, error) {
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

// warnLostEvidence warns, per replayed target whose sealed run holds the
// server's per-request evidence, when the replay collects none of it: the
// second witness of the sealed run has no counterpart in the replay.
func warnLostEvidence(e *env, s *session.Sealed, targets []bench.Target, ev session.ServerEvents, launched map[string]string) {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	for _, l := range s.LostEvidence(names, ev, launched) {
		var how []string
		if l.Sealed.OTLP || !l.Sealed.Profiler {
			how = append(how, "--otlp-listen ADDR (vLLM's spans; its server started with --otlp-traces-endpoint http://ADDR)")
		}
		if l.Sealed.Profiler || !l.Sealed.OTLP {
			how = append(how, fmt.Sprintf("--server-events %s=DIR (SGLang-Omni's request profiler)", l.Target))
		}
		e.warnf("the sealed run holds %s's per-request server evidence (servers/%s/), this replay collects none: verify's events check (10) finds nothing to hold the replay's records to; give %s",
			l.Target, l.Target, strings.Join(how, " or "))
	}
}

// otlpListenError adds a hint to a session start that failed because
// --otlp-listen's port is taken.
func otlpListenError(err error, addr string) error {
	if !errors.Is(err, syscall.EADDRINUSE) || addr == "" {
		return err
	}
	return withHint(err, "something already listens on %s (an OpenTelemetry collector, or an earlier benchseal run?): stop it, or give --otlp-listen another port and vLLM's --otlp-traces-endpoint the same", addr)
}
