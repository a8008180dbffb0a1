package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/spf13/cobra"
)

func init() { register(newSimCmd) }

func newSimCmd(e *env) *cobra.Command {
	var (
		cfg         sim.Config
		addr        string
		corpus      string
		logRequests bool
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "serve a simulated OpenAI-compatible ASR server (vllm or sglang-omni persona)",
		Long: `sim serves a simulated OpenAI-compatible /v1/audio/transcriptions server
that behaves like a real engine where it matters for measurement: the
persona's response and error shapes, self-description endpoints and
Prometheus /metrics names, a latency model (base + per audio second), a
bounded number of running requests with a FIFO queue and shedding (vllm: 503,
sglang-omni: 500 "The request queue is full."), an optional byte cache, failures, mid-stream failures and
word errors.

With --corpus it recognises each clip, even as a 1-LSB variant, and answers
its reference text; other audio gets a deterministic pseudo-sentence.

When ready it prints one line on stderr:
  benchseal: sim (vllm) listening on http://127.0.0.1:8000
(--addr 127.0.0.1:0 picks a free port; the line names it). Ctrl-C or SIGTERM
shuts it down gracefully with exit status 0.`,
		Example: `  benchseal sim --addr 127.0.0.1:8000 --persona sglang-omni --corpus clips/ \
    --base-latency 50ms --per-audio-second 20ms --max-running 32 --max-queue 16`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpus != "" {
				clips, err := simCorpus(corpus)
				if err != nil {
					return withHint(fmt.Errorf("loading corpus: %w", err),
						"--corpus takes a folder of .wav files with same-named .txt references, a JSONL manifest of {\"id\", \"audio\", \"text\"}, or a corpus of run's other layouts (a LibriSpeech folder, a Common Voice .tsv, a .parquet file, a folder of .flac or .mp3 clips)")
				}
				cfg.Corpus = clips
			}
			if logRequests {
				cfg.RequestLog = e.stderr
			}
			srv, err := sim.New(cfg)
			if err != nil {
				var ce *sim.ConfigError
				if errors.As(err, &ce) {
					// A field is named as its flag ("base latency": --base-latency); a corpus clip's as --corpus.
					name := strings.ReplaceAll(ce.Field, " ", "-")
					if cmd.Flags().Lookup(name) == nil {
						name = "corpus"
					}
					return usageErrorf("sim: --%s: %s", name, ce.Reason)
				}
				return err
			}
			return serveSim(cmd.Context(), e, srv, addr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on (port 0 picks a free one)")
	f.StringVar(&cfg.Persona, "persona", sim.PersonaVLLM, "engine to imitate: vllm, vllm-omni or sglang-omni")
	f.StringVar(&cfg.Model, "model", "", "served model name (default "+sim.DefaultModel+"; the vllm-omni persona's "+sim.DefaultTTSModel+")")
	f.StringVar(&corpus, "corpus", "", "folder of WAVs with .txt references, a JSONL manifest {id, audio, text}, or another layout run reads (LibriSpeech folder, Common Voice .tsv, .parquet with the default columns), decoded as run decodes it")
	f.DurationVar(&cfg.BaseLatency, "base-latency", 0, "service time of every request")
	f.DurationVar(&cfg.PerAudioSecond, "per-audio-second", 0, "service time added per second of audio")
	f.IntVar(&cfg.MaxRunning, "max-running", 0, "requests served at once; the rest queue (0: the engine's default: sglang-omni 64, vllm unlimited)")
	f.IntVar(&cfg.MaxQueue, "max-queue", 0, "shed past this bound, counted as the engine counts it: vllm the requests in flight, running and waiting (--max-num-queued-reqs); sglang-omni the waiters beyond --max-running (--max_queued_requests) (0: unlimited)")
	f.IntVar(&cfg.MaxQueuedTokens, "max-queued-tokens", 0, "vllm: shed when the prompt tokens of the requests still in prefill would pass this (--max-num-queued-tokens; 0: unlimited)")
	f.Float64Var(&cfg.ChunkSeconds, "chunk-seconds", 0, "split longer audio into engine requests, as the engine does (0: the engine's default: vllm 30, sglang-omni 60; negative: never)")
	f.BoolVar(&cfg.Cache, "cache", false, sim.CacheHelp())
	f.Float64Var(&cfg.FailRate, "fail-rate", 0, "fraction of requests that fail with HTTP 500")
	f.Float64Var(&cfg.WordErrorRate, "word-error-rate", 0, "fraction of reference words substituted in answers, rounded per clip: round(rate × the clip's words) words, the same in every variant of the clip (0.1 of a 4-word clip substitutes none)")
	f.Uint64Var(&cfg.Seed, "seed", 0, "seed of failures, word errors and unknown-audio answers")
	f.BoolVar(&cfg.RawPrefix, "raw-prefix", false, `start every transcript with Qwen3-ASR's raw "language English<asr_text>"`)
	f.DurationVar(&cfg.ReadyDelay, "ready-delay", 0, "answer 503 (model loading) until this long after start")
	f.DurationVar(&cfg.MetricsLag, "metrics-lag", 0, "count each request in /metrics this long after its answer, as vLLM records stats after answering")
	f.BoolVar(&logRequests, "log-requests", false, "print one line per request on stderr")
	f.BoolVar(&cfg.DevMode, "dev-mode", false, "vllm: serve /server_info as VLLM_SERVER_DEV_MODE=1 does")
	f.BoolVar(&cfg.NoMetrics, "no-metrics", false, "answer /metrics with 404 (SGLang-Omni without metrics enabled)")
	f.Float64Var(&cfg.StreamFailRate, "stream-fail-rate", 0, "fraction of streams that fail midway with the persona's error event")
	f.Float64Var(&cfg.StreamCutRate, "stream-cut-rate", 0, "fraction of streams cut short midway (no final event, no [DONE])")
	f.StringVar(&cfg.OTLPEndpoint, "otlp-traces-endpoint", "", "vllm: export one OpenTelemetry span per request to this endpoint, as vLLM's flag (run --otlp-listen)")
	f.StringVar(&cfg.OTLPProtocol, "otlp-protocol", sim.OTLPGRPC, "with --otlp-traces-endpoint: grpc or http/protobuf (vLLM's OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)")
	f.StringVar(&cfg.SGLangMetrics, "sglang-metrics", sim.SGLangHTTPMetrics, "sglang-omni: /metrics design, http (serve/metrics.py's sglang_omni_http_*) or runtime (the prometheus_client sglang_omni:asr_* families)")
	f.StringVar(&cfg.ProfilerDir, "profiler-dir", "", "sglang-omni: where /start_request_profile writes events when it names no event_dir (SGLANG_TORCH_PROFILER_DIR)")
	return cmd
}

func serveSim(ctx context.Context, e *env, srv *sim.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return withHint(fmt.Errorf("sim: listening on %s: %w", addr, err), "pick another address with --addr, or port 0 for a free one")
	}
	infof(e.stderr, "sim (%s) listening on http://%s", srv.Config().Persona, ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		return fmt.Errorf("sim: serving: %w", err)
	}
	return nil
}

// simCorpus is what sim --corpus recognises: a folder of WAVs or a JSONL
// manifest through the simulator's own loader; the layouts only run
// reads (a LibriSpeech folder, a folder of FLAC or MP3 clips, a Common
// Voice .tsv, a .parquet file with the default columns) through run's
// loader, each clip the WAV run decodes and sends.
func simCorpus(path string) ([]sim.Clip, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".tsv" && ext != ".parquet" && ext != ".flac" && ext != ".mp3" {
		clips, err := sim.LoadCorpus(path)
		if !errors.Is(err, sim.ErrEmptyCorpus) {
			return clips, err
		}
		if st, serr := os.Stat(path); serr != nil || !st.IsDir() {
			return clips, err
		}
	}
	items, err := task.LoadWAVCorpus(path)
	if err != nil {
		return nil, err
	}
	clips := make([]sim.Clip, len(items))
	for i, c := range items {
		clips[i] = sim.Clip{Audio: c.WAV.Bytes, Text: c.Text}
	}
	return clips, nil
}
