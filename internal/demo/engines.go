package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

// Engines are the two simulated servers the demo compares. They differ
// where real engines differ: latency model, how many requests they admit at
// once and what they do beyond their queue (sglang-omni sheds with HTTP 500,
// as SGLang-Omni did at concurrency 64). Both cache identical bytes, which
// benchseal's perturbation defeats.
var Engines = []Engine{
	{"vllm", sim.Config{Persona: sim.PersonaVLLM, BaseLatency: 60 * time.Millisecond, PerAudioSecond: 8 * time.Millisecond,
		MaxRunning: 16, Cache: true, WordErrorRate: 0.06, Seed: 1}},
	{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, BaseLatency: 35 * time.Millisecond, PerAudioSecond: 12 * time.Millisecond,
		MaxRunning: 8, MaxQueue: 16, Cache: true, WordErrorRate: 0.08, Seed: 2}},
}

// Engine is a simulated server of a demo: its target name and its
// simulator's configuration.
type Engine struct {
	Name   string
	Config sim.Config
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

// Sim is one of Engines, served.
type Sim struct{ Name, URL string }

// StartError is an engine of Engines that could not be served.
type StartError struct {
	Engine string
	Err    error
}

func (e *StartError) Error() string { return "start " + e.Engine + ": " + e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Setup writes the demo corpus into corpus and serves every one of
// Engines on a free loopback port, recognising that corpus. stop shuts
// down every simulator started; on error those already started are
// stopped.
func Setup(corpus string) (sims []Sim, stop func(), err error) {
	if err := WriteCorpus(corpus); err != nil {
		return nil, nil, err
	}
	clips, err := sim.LoadCorpus(corpus)
	if err != nil {
		return nil, nil, err
	}
	return serve(Engines, clips)
}

// serve serves every one of engines on a free loopback port, recognising
// clips; on error those already started are stopped.
func serve(engines []Engine, clips []sim.Clip) (sims []Sim, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for _, eng := range engines {
		cfg := eng.Config
		cfg.Corpus = clips
		url, s, err := StartSim(cfg)
		if err != nil {
			stop()
			return nil, nil, &StartError{Engine: eng.Name, Err: err}
		}
		stops = append(stops, s)
		sims = append(sims, Sim{eng.Name, url})
	}
	return sims, stop, nil
}

// FreeDir is base, or the first base-N (N from 2) that does not exist.
func FreeDir(base string) string {
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
		dir = base + "-" + strconv.Itoa(i)
	}
}
