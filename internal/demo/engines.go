package demo

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

// Engines are the two simulated servers the demo compares. They differ
// where real engines differ: latency model, how many requests they admit at
// once and what they do beyond their queue (sglang-omni sheds with HTTP 500,
// as SGLang-Omni did at concurrency 64). Both cache identical bytes, which
// benchseal's perturbation defeats.
var Engines = []struct {
	Name   string
	Config sim.Config
}{
	{"vllm", sim.Config{Persona: sim.PersonaVLLM, BaseLatency: 60 * time.Millisecond, PerAudioSecond: 8 * time.Millisecond,
		MaxRunning: 16, Cache: true, WordErrorRate: 0.06, Seed: 1}},
	{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, BaseLatency: 35 * time.Millisecond, PerAudioSecond: 12 * time.Millisecond,
		MaxRunning: 8, MaxQueue: 16, Cache: true, WordErrorRate: 0.08, Seed: 2}},
}

// StartSim serves a simulated engine on a free loopback port.
func StartSim(cfg sim.Config) (url string, stop func(), err error) {
	srv, err := sim.New(cfg)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}
