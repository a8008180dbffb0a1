// Package roundtrip hears a tts run's produced audio through an ASR
// server (run --asr-target NAME=URL): the intelligibility figure of a
// synthesiser, its words as a recogniser hears them.
//
// While the sweep runs it only keeps each measured successful answer
// (bench.WithAnswers), as it came off the wire, in a spool file outside
// the run directory: no request is sent to the ASR server inside a timed
// window, and what a worker does per answer is one copy into a pooled
// buffer handed to the spool's one writer (spool.go); an answer the
// writer is too far behind to take is not kept, and asr.json counts it.
// After the sweep (and the cache probe), every kept answer's audio, the
// PCM whose SHA-256 its record names (task.ProducedWAV), is sent to
// <url>/v1/audio/transcriptions as a 16-bit WAV (multipart, model,
// response_format json), a few at a time; what came back is written to
// roundtrip/<target>.jsonl, one schemas.Heard line per answer, and how it
// went to roundtrip/asr.json. Config.Progress (run's stderr) gets a line
// as the hearing starts, a heartbeat while it runs (sent of the total,
// heard, failed, the rate, the time left) and a line as it ends. claims.json's quality figure of the run
// (task.RoundTripper) is then the WER of those transcripts against the
// text each request spoke, scored with run.json's scoring, as the
// runner's and a verifier's recompute both compute it.
//
// Before the sweep the ASR server must answer GET /v1/models (the run
// does not start otherwise) and serve the model (its only one, or
// Config.Model). A transcription that fails is kept as such (its status
// and error): that answer is then not scored, not observed, and the
// rest are. The first Ctrl-C stops sending; what was heard is written.
package roundtrip

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Config is the ASR server of a round trip.
type Config struct {
	Name  string // as run.json's protocol.round_trip names it
	URL   string // its base URL
	Model string // "": the one it lists
	// APIKey is sent as a bearer token, never written.
	APIKey  string
	Timeout time.Duration // per transcription; 0: DefaultTimeout
	// Workers is how many transcriptions are in flight at once (0:
	// DefaultWorkers).
	Workers int
	// SpoolBehind bounds the bytes of answers waiting to be spooled (0:
	// DefaultSpoolBehind); an answer past it is not kept, and counted.
	SpoolBehind int64
	// Progress, when set (stderr), gets a line as the hearing starts,
	// one every Heartbeat while it runs (0: bench.DefaultHeartbeat) and
	// one when it ends: answers sent of the total, heard, failed, the
	// rate and the time left.
	Progress  io.Writer
	Heartbeat time.Duration
}

// DefaultTimeout bounds one transcription; DefaultWorkers is how many
// run at once after the sweep.
const (
	DefaultTimeout = 2 * time.Minute
	DefaultWorkers = 4
)

// RoundTrip keeps a run's answers during the sweep and hears them after
// it. Use Options for bench.Run; one RoundTrip serves one run.
type RoundTrip struct {
	cfg    Config
	client *http.Client
	models []string

	spool *spool // from before the sweep
	kept  []kept // the spool's, once the sweep ended
	// hearer is the task the ASR server answers (the run's task's
	// task.RoundTripper.Hearer), from before the sweep.
	hearer task.Task
}

// kept is one answer in the spool.
type kept struct {
	heard       schemas.Heard // its record's identity, filled in when heard
	target      string
	output      string // the record's text: the answer's audio facts
	contentType string
	off, n      int64
}

// New checks cfg; nothing is sent yet.
func New(cfg Config) (*RoundTrip, error) {
	if cfg.Name == "" || cfg.URL == "" {
		return nil, errors.New("--asr-target: give it as NAME=URL")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.SpoolBehind <= 0 {
		cfg.SpoolBehind = DefaultSpoolBehind
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = bench.DefaultHeartbeat
	}
	cfg.URL = strings.TrimSuffix(strings.TrimRight(cfg.URL, "/"), "/v1")
	return &RoundTrip{cfg: cfg, client: &http.Client{}}, nil
}

// Options are the run's options: answers kept, the ASR server checked
// before the sweep, heard after it. ctx is the run's: once it is
// cancelled (the first Ctrl-C), no further answer is sent.
func (rt *RoundTrip) Options(ctx context.Context) []bench.Option {
	return []bench.Option{bench.WithAnswers(rt.keep), bench.WithHooks(bench.Hooks{
		BeforeSweep: rt.before,
		AfterSweep:  func(_ context.Context, d *bench.Dir) error { return rt.after(ctx, d) },
	})}
}

// before asks the ASR server for its models, settles the model and
// opens the spool; run.json names the round trip.
func (rt *RoundTrip) before(ctx context.Context, d *bench.Dir) error {
	tk, err := task.ForRun(d.Run)
	rtp, ok := tk.(task.RoundTripper)
	if err != nil || !ok {
		return fmt.Errorf("--asr-target hears produced audio: it needs --task %s, not %q", strings.Join(task.RoundTripNames(), " or "), task.NameOf(d.Run))
	}
	rt.hearer = rtp.Hearer()
	ids, err := bench.Models(ctx, rt.client, bench.Target{Name: rt.cfg.Name, URL: rt.cfg.URL}, rt.cfg.APIKey)
	if te := (*bench.TargetError)(nil); errors.As(err, &te) {
		// Not a *TargetError: its hint names --target, this is --asr-target.
		return fmt.Errorf("--asr-target %s (%s) is not answering: %v; start it, or fix --asr-target %s=URL (the base URL)",
			rt.cfg.Name, fingerprint.Redact(rt.cfg.URL), te.Err, rt.cfg.Name)
	}
	if err != nil {
		return fmt.Errorf("--asr-target: %w", err)
	}
	switch {
	case rt.cfg.Model != "":
	case len(ids) == 1:
		rt.cfg.Model = ids[0]
	default:
		return fmt.Errorf("--asr-target %s lists %d models (%s): name one with --asr-model", rt.cfg.Name, len(ids), strings.Join(ids, ", "))
	}
	rt.models = ids
	f, err := os.CreateTemp("", "benchseal-roundtrip-*")
	if err != nil {
		return err
	}
	os.Remove(f.Name()) // the open file is the spool; nothing is left behind
	rt.spool = newSpool(f, rt.cfg.SpoolBehind)
	d.Run.Protocol.RoundTrip = &schemas.RoundTrip{ASR: rt.cfg.Name, Model: rt.cfg.Model}
	return nil
}

// keep hands one answer to the spool (bench.WithAnswers; any
// goroutine): a copy, never a write (spool.go).
func (rt *RoundTrip) keep(a bench.Answer) {
	if rt.spool == nil {
		return
	}
	r := a.Record
	rt.spool.put(kept{target: r.Target, output: r.Text, contentType: a.ContentType,
		heard: schemas.Heard{RequestID: r.RequestID, Clip: r.Clip, Concurrency: r.Concurrency, Repeat: r.Repeat, Seq: r.Seq}}, a.Body)
}

// after hears every kept answer and writes roundtrip/.
func (rt *RoundTrip) after(ctx context.Context, d *bench.Dir) error {
	if rt.spool == nil {
		return nil
	}
	rt.spool.close()
	defer rt.spool.f.Close()
	rt.kept = rt.spool.kept
	sum := schemas.RoundTripASR{Schema: schemas.RoundTripSchema, Name: rt.cfg.Name, URL: fingerprint.Redact(rt.cfg.URL),
		Model: rt.cfg.Model, Models: rt.models, Sent: map[string]int{}, Heard: map[string]int{}, StartNs: d.Offset(time.Now())}
	if err := rt.spool.err; err != nil {
		sum.Skipped = append(sum.Skipped, "answers after a spool write failed were not kept: "+err.Error())
	}
	if n := rt.spool.dropped; n > 0 {
		sum.Skipped = append(sum.Skipped, fmt.Sprintf("%d answers were not kept: the spool's writer was more than %d MiB behind the sweep", n, rt.cfg.SpoolBehind>>20))
	}
	if slices.ContainsFunc(d.Run.Events, func(e schemas.RunEvent) bool { return e.Kind == "interrupted" }) {
		sum.Skipped = append(sum.Skipped, fmt.Sprintf("the sweep was interrupted: none of the %d answers kept was sent", len(rt.kept)))
		rt.kept = nil
	}
	slices.SortFunc(rt.kept, func(a, b kept) int {
		return cmp.Or(cmp.Compare(a.target, b.target), cmp.Compare(a.heard.Concurrency, b.heard.Concurrency),
			cmp.Compare(a.heard.Repeat, b.heard.Repeat), cmp.Compare(a.heard.Seq, b.heard.Seq))
	})
	if err := os.MkdirAll(filepath.Join(d.Path, schemas.RoundTripDir), 0o755); err != nil {
		return err
	}
	rt.hearAll(ctx, d)
	byTarget := map[string][]schemas.Heard{}
	sent := 0
	for _, k := range rt.kept {
		if k.heard.StartNs == 0 {
			continue // not sent: interrupted
		}
		sent++
		byTarget[k.target] = append(byTarget[k.target], k.heard)
		sum.Sent[k.target]++
		if k.heard.Status == http.StatusOK && k.heard.Error == "" {
			sum.Heard[k.target]++
		}
	}
	if sent < len(rt.kept) {
		sum.Skipped = append(sum.Skipped, fmt.Sprintf("interrupted: %d of %d answers were not sent", len(rt.kept)-sent, len(rt.kept)))
	}
	sum.EndNs = d.Offset(time.Now())
	var errs []error
	for _, t := range d.Run.Targets {
		if hs := byTarget[t.Name]; len(hs) > 0 {
			errs = append(errs, writeJSONL(filepath.Join(d.Path, filepath.FromSlash(schemas.RoundTripPath(t.Name))), hs))
		}
	}
	errs = append(errs, newfile.WriteJSON(filepath.Join(d.Path, filepath.FromSlash(schemas.RoundTripASRFile)), sum))
	return errors.Join(errs...)
}

// hearAll sends the kept answers, cfg.Workers at a time, until ctx ends,
// saying how it goes on cfg.Progress.
func (rt *RoundTrip) hearAll(ctx context.Context, d *bench.Dir) {
	pr := rt.newHearing()
	defer pr.end(ctx)
	next := make(chan int)
	var wg sync.WaitGroup
	for range rt.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				k := &rt.kept[i]
				rt.hear(ctx, d, k)
				pr.done(k.heard.Status == http.StatusOK && k.heard.Error == "")
			}
		}()
	}
	for i := range rt.kept {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// hearing is hearAll's progress: a line as it starts, a heartbeat line
// every cfg.Heartbeat and one as it ends, like the run's own progress
// without a terminal:
//
//	benchseal: round trip: 240/1824 sent, 236 heard, 4 failed, 4.2/s, ~6m17s left
type hearing struct {
	w           io.Writer
	total       int
	start       time.Time
	sent, heard atomic.Int64
	stop        chan struct{}
	stopped     sync.WaitGroup
	mu          sync.Mutex // one line at a time
}

func (rt *RoundTrip) newHearing() *hearing {
	h := &hearing{w: rt.cfg.Progress, total: len(rt.kept), start: time.Now(), stop: make(chan struct{})}
	if h.w == nil || h.total == 0 {
		return h
	}
	h.line(fmt.Sprintf("hearing %d answers through %s (%s), %d at a time", h.total, rt.cfg.Name, rt.cfg.Model, rt.cfg.Workers))
	h.stopped.Add(1)
	go func() {
		defer h.stopped.Done()
		t := time.NewTicker(rt.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.line(h.status(true))
			}
		}
	}()
	return h
}

func (h *hearing) done(ok bool) {
	h.sent.Add(1)
	if ok {
		h.heard.Add(1)
	}
}

// end stops the heartbeat and says how the hearing ended.
func (h *hearing) end(ctx context.Context) {
	close(h.stop)
	h.stopped.Wait()
	if h.w == nil || h.total == 0 {
		return
	}
	line := h.status(false) + " in " + roughDuration(time.Since(h.start))
	if int(h.sent.Load()) < h.total && ctx.Err() != nil {
		line += "; interrupted: the rest were not sent"
	}
	h.line(line)
}

// status is "240/1824 sent, 236 heard, 4 failed", with the rate and the
// time left while it runs.
func (h *hearing) status(running bool) string {
	sent, heard := h.sent.Load(), h.heard.Load()
	s := fmt.Sprintf("%d/%d sent, %d heard", sent, h.total, heard)
	if f := sent - heard; f > 0 {
		s += fmt.Sprintf(", %d failed", f)
	}
	if el := time.Since(h.start); running && sent > 0 && el > 0 {
		rate := float64(sent) / el.Seconds()
		s += fmt.Sprintf(", %.1f/s, ~%s left", rate, roughDuration(time.Duration(float64(h.total-int(sent))/rate*float64(time.Second))))
	}
	return s
}

func (h *hearing) line(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(h.w, "benchseal: round trip: %s\n", s)
}

// roughDuration words d as a time left needs: 4m10s, 12s, 0.4s.
func roughDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// hear sends one answer's audio and keeps what came back in k.heard.
func (rt *RoundTrip) hear(ctx context.Context, d *bench.Dir, k *kept) {
	h := &k.heard
	h.StartNs = max(1, d.Offset(time.Now()))
	defer func() { h.EndNs = d.Offset(time.Now()) }()
	body := make([]byte, k.n)
	if _, err := rt.spool.f.ReadAt(body, k.off); err != nil {
		h.Error = "reading the kept answer: " + err.Error()
		return
	}
	if a, err := task.ParseAudio(k.output); err == nil {
		h.AudioSHA256 = a.SHA256
	}
	wav, err := task.ProducedWAV(k.output, k.contentType, body)
	if err != nil {
		h.Error = err.Error()
		return
	}
	h.Status, h.Text, err = rt.transcribe(ctx, wav)
	if err != nil {
		h.Error = fingerprint.ScrubSecrets(err.Error())
	}
}

// transcribe posts wav to the ASR server: its status and transcript.
func (rt *RoundTrip) transcribe(ctx context.Context, wav []byte) (int, string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("file", "audio.wav")
	if err != nil {
		return 0, "", err
	}
	fw.Write(wav)
	mw.WriteField("model", rt.cfg.Model)
	mw.WriteField("response_format", "json")
	if err := mw.Close(); err != nil {
		return 0, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rt.cfg.URL+rt.hearer.Path(), &b)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if rt.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+rt.cfg.APIKey)
	}
	resp, err := rt.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return resp.StatusCode, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(out[:min(len(out), 300)])))
	}
	text, _, err := rt.hearer.Decode(map[string]string{"response_format": "json"}, resp.Header.Get("Content-Type"), out)
	return resp.StatusCode, text, err
}

// writeJSONL writes one JSON line per value to a new file.
func writeJSONL[T any](path string, vs []T) error {
	var b bytes.Buffer
	for _, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return newfile.Write(path, b.Bytes(), 0o644)
}
