package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	bundlepkg "github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/spf13/cobra"
)

func init() { register(newDemoCmd) }

// demoTasks are the tasks demo demonstrates (runDemo's cases).
var demoTasks = []string{"asr", "tts", "chat-audio", "realtime"}

func newDemoCmd(e *env) *cobra.Command {
	var out, taskName string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "run the whole workflow on an embedded default: run, seal, verify, report",
		Long: `demo runs benchseal's whole workflow on a fresh machine, with no GPU and no
audio of your own: it starts two simulated engines on loopback (a vllm and an
sglang-omni persona), measures both with an interleaved closed-loop sweep over
five embedded speech clips, seals the evidence with an ephemeral key, verifies
the bundle and writes a report. The run is pre-registered (run --tsa) with a
local time-stamping authority made for the demo, so that verify shows how a
reader checks when a run was planned and sealed; a real run names a public
authority and pins its published chain.

Everything lands in --out (default: ./benchseal-demo, or the first
./benchseal-demo-N that does not exist): corpus/, run/, evidence.tar.zst,
tsa-chain.pem (the demo authority's certificates), benchseal.pub (the
ephemeral key's public half, which the bundle also carries) and report/.

--task tts runs the same workflow for text to speech (run --task tts): two
simulated speech servers on loopback (a vllm-omni and an sglang-omni
persona), five embedded texts each
spoken in a voice-clone request with a reference clip (the ASR demo's
clips and transcripts), streamed as raw PCM so that time to first audio is
observed.

--task chat-audio runs it for audio chat (run --task chat-audio): a vllm-omni
and an sglang-omni persona serving Qwen3-Omni on /v1/chat/completions, each of
the five clips sent with the prompt "Transcribe the audio." (an input_audio
content part; sglang-omni's own audios list), answers streamed so that time to
first token and inter-token latency are observed, scored by WER against the
clips' transcripts.

--task realtime runs it for realtime recognition (run --task realtime): a vllm
and an sglang-omni persona serving WS /v1/realtime, each in its engine's
protocol, every session streaming one clip's variant in 100 ms PCM16 chunks
(at four times real time), its events timed as they arrive: time to first partial,
finalisation lag and revisions are observed.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = demo.FreeDir("benchseal-demo")
			}
			if !slices.Contains(demoTasks, taskName) {
				return usageErrorf("--task %q: want %s", taskName, strings.Join(demoTasks, ", "))
			}
			return runDemo(cmd.Context(), e, out, taskName)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "folder to create for the demo's files (must not exist)")
	cmd.Flags().StringVar(&taskName, "task", "asr", "the workflow to demonstrate: asr (speech to text), tts (text to speech), chat-audio (audio chat) or realtime (streaming recognition)")
	return cmd
}

func runDemo(ctx context.Context, e *env, out, taskName string) error {
	if err := os.Mkdir(out, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return withHint(fmt.Errorf("demo: %s already exists", out), "evidence is never overwritten: choose another --out")
		}
		return fmt.Errorf("demo: %w", err)
	}
	corpus := filepath.Join(out, "corpus")
	var sims []demo.Sim
	var stop func()
	var err error
	runArgs := []string{"--concurrency", "1,8,32", "--requests", "16,48,96", "--repeats", "2"}
	switch taskName {
	case "tts":
		corpus, sims, stop, err = demo.SetupTTS(corpus)
		runArgs = demo.TTSRunArgs
	case "chat-audio":
		sims, stop, err = demo.SetupChat(corpus)
		runArgs = demo.ChatRunArgs
	case "realtime":
		sims, stop, err = demo.SetupRealtime(corpus)
		runArgs = demo.RealtimeRunArgs
	default:
		sims, stop, err = demo.Setup(corpus)
	}
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer stop()
	var targets []string
	for _, s := range sims {
		targets = append(targets, "--target", s.Name+"="+s.URL)
		infof(e.stderr, "demo: simulated %s listening on %s", s.Name, s.URL)
	}

	tsaURL, chainPEM, stopTSA, err := demo.StartAuthority()
	if err != nil {
		return fmt.Errorf("demo: time-stamping authority: %w", err)
	}
	defer stopTSA()
	chain := filepath.Join(out, "tsa-chain.pem")
	if err := newfile.Write(chain, chainPEM, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	infof(e.stderr, "demo: local time-stamping authority (made for the demo) on %s", tsaURL)

	runDir := filepath.Join(out, "run")
	bundle := filepath.Join(out, "evidence.tar.zst")
	report := filepath.Join(out, "report")
	steps := [][]string{
		append(append([]string{"run", "--corpus", corpus}, runArgs...),
			append([]string{"--out", runDir, "--seal", bundle, "--tsa", tsaURL, "--tsa-cert", chain}, targets...)...),
		{"verify", bundle, "--tsa-cert", chain},
		{"report", bundle, "-o", report, "--tsa-cert", chain},
	}
	pub := filepath.Join(out, bundlepkg.PublicKeyName)
	for _, args := range steps {
		infof(e.stderr, "demo: benchseal %s", strings.Join(args, " "))
		if err := subcommand(ctx, e, args); err != nil {
			return fmt.Errorf("demo: benchseal %s: %w", args[0], err)
		}
		if args[0] == "run" { // run --seal sealed it
			if err := writeEmbeddedKey(bundle, pub); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			infof(e.stderr, "demo: the ephemeral key's public half, as the bundle carries it, written to %s", pub)
		}
	}
	infof(e.stderr, "demo: done; the evidence is %s, the report %s (the summary to paste: %s), the signer's public key %s", bundle, filepath.Join(report, "REPORT.md"), filepath.Join(report, "SUMMARY.md"), pub)
	infof(e.stderr, "demo: check it yourself: %s verify %s --key %s --tsa-cert %s", selfCommand(os.Args[0], exec.LookPath, builtWithoutCgo()), bundle, pub, chain)
	infof(e.stderr, "demo: check 11 shows when the run was planned and sealed, by the demo's own authority: against a real one, --tsa-cert is the chain it publishes")
	return nil
}

// writeEmbeddedKey writes the public key a bundle carries (benchseal.pub,
// sealed with an ephemeral key) to path, so that --key can name it: it is
// only as trustworthy as the channel the bundle came by.
func writeEmbeddedKey(bundle, path string) error {
	f, err := os.Open(bundle)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := bundlepkg.Open(f, bundlepkg.DefaultLimits)
	if err != nil {
		return fmt.Errorf("read %s: %w", bundle, err)
	}
	if b.PublicPEM == nil {
		return fmt.Errorf("%s carries no %s", bundle, bundlepkg.PublicKeyName)
	}
	return newfile.Write(path, b.PublicPEM, 0o644)
}

// selfCommand is how the user can call this benchseal again: "benchseal"
// when that is on PATH, "go run ./cmd/benchseal" under go run (whose
// binary lives in a temporary go-build folder that is gone afterwards),
// with CGO_ENABLED=0 in front when this binary was built so (the same
// build again, from the cache, rather than a cgo build from scratch),
// else the path it was started by (./benchseal).
func selfCommand(arg0 string, lookPath func(string) (string, error), cgoOff bool) string {
	if _, err := lookPath("benchseal"); err == nil {
		return "benchseal"
	}
	if strings.Contains(filepath.ToSlash(arg0), "/go-build") {
		if cgoOff {
			return "CGO_ENABLED=0 go run ./cmd/benchseal"
		}
		return "go run ./cmd/benchseal"
	}
	if !strings.ContainsRune(arg0, os.PathSeparator) {
		return "./" + arg0
	}
	return arg0
}

// builtWithoutCgo reports whether the build settings this binary carries
// say CGO_ENABLED=0.
func builtWithoutCgo() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "0"
		}
	}
	return false
}

// subcommand runs one benchseal subcommand in-process with the demo's env.
func subcommand(ctx context.Context, e *env, args []string) error {
	sub := *e
	sub.args = args
	root := newRootCmd(&sub)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	return root.ExecuteContext(ctx)
}

// startSim serves a simulated engine on a free loopback port.
var startSim = demo.StartSim
