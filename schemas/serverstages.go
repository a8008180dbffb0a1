package schemas

import (
	"fmt"
	"path"
	"regexp"
)

// Sources of a RequestStages line: which server evidence it was read from.
const (
	// SourceOTLP: one OpenTelemetry span vLLM exported ("llm_request",
	// gen_ai.latency.* attributes), received by benchseal's OTLP listener.
	SourceOTLP = "otlp"
	// SourceProfiler: SGLang-Omni's request profiler events
	// (events_<stage>_<pid>.jsonl), one request's events.
	SourceProfiler = "sglang_omni_profiler"
)

// RequestStages is one line of servers/<target>/stages/c<C>-r<R>.jsonl: one
// request as the server accounted for it, joined to the client's record by
// request id. Times are seconds, null when the server's evidence does not
// give that interval (never 0 for "absent"). The file holds a line for every
// request the server's evidence names in the step's window; RequestID is
// empty when no record of the step carries its server id (SGLang-Omni does
// not return its own id on non-streamed answers).
type RequestStages struct {
	RequestID       string `json:"request_id"`        // the record's request_id ("" when not joined)
	ServerRequestID string `json:"server_request_id"` // the id the server's evidence carries
	Source          string `json:"source"`            // SourceOTLP or SourceProfiler
	Concurrency     int    `json:"concurrency"`
	Repeat          int    `json:"repeat"`
	// Stage names the engine stage whose scheduler events gave queue,
	// prefill and decode (SourceProfiler); "" for OTLP.
	Stage string `json:"stage,omitempty"`

	QueueS     *float64 `json:"queue_s"`     // admission wait: queued -> scheduled
	BuildS     *float64 `json:"build_s"`     // request build (SGLang-Omni only)
	PrefillS   *float64 `json:"prefill_s"`   // first forward: scheduled -> first token
	DecodeS    *float64 `json:"decode_s"`    // first token -> last token / stage complete
	InferenceS *float64 `json:"inference_s"` // scheduled -> last token (vLLM)
	TTFTS      *float64 `json:"ttft_s"`      // arrival -> first token (vLLM)
	E2ES       *float64 `json:"e2e_s"`       // the server's end to end for the request
	// Parts is how many pieces of evidence the line was made from (spans,
	// or events); more than one span means the server split the request
	// (vLLM's chunked long audio), and then only E2ES (the longest) is set.
	Parts int `json:"parts"`
}

// StagesPath is the joined per-request server stage times of one step:
// servers/<target>/stages/c<C>-r<R>.jsonl.
func StagesPath(target string, concurrency, repeat int) string {
	return path.Join(ServersDir, target, "stages", fmt.Sprintf("c%d-r%d.jsonl", concurrency, repeat))
}

// OTLPExportPath is one OTLP export request as received (protobuf
// ExportTraceServiceRequest bytes) that carried spans of target:
// servers/<target>/otlp/export-<n>.binpb.
func OTLPExportPath(target string, n int) string {
	return path.Join(ServersDir, target, "otlp", fmt.Sprintf("export-%d.binpb", n))
}

// ProfilerEventsPath is one event file SGLang-Omni's request profiler
// wrote during a step, copied as written:
// servers/<target>/events/c<C>-r<R>/<file> (file: events_<stage>_<pid>.jsonl).
func ProfilerEventsPath(target string, concurrency, repeat int, file string) string {
	return path.Join(ServersDir, target, "events", fmt.Sprintf("c%d-r%d", concurrency, repeat), file)
}

var serverEvidence = regexp.MustCompile(`^servers/[^/]+/(stages/c[0-9]+-r[0-9]+\.jsonl|otlp/export-[0-9]+\.binpb|events/c[0-9]+-r[0-9]+/events_[A-Za-z0-9_.-]+_[0-9]+\.jsonl)$`)

// IsServerEvents says whether name is per-request server evidence: a
// StagesPath, an OTLPExportPath or a ProfilerEventsPath.
func IsServerEvents(name string) bool { return serverEvidence.MatchString(name) }

// IsStages says whether name is a StagesPath.
func IsStages(name string) bool {
	return IsServerEvents(name) && path.Base(path.Dir(name)) == "stages"
}
