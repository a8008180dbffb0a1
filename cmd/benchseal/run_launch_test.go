package main

// End-to-end tests of `benchseal run --launch` with real processes: the
// test binary is `benchseal` on PATH (testscript.Main puts it there), and
// every server is a real `benchseal sim` started by the run.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/nvmlstub"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeTestWAV writes a 0.5 s 16 kHz mono 16-bit clip.
func writeTestWAV(t *testing.T, path string, seed int) {
	t.Helper()
	if err := os.WriteFile(path, testkit.PCM16(16000, testkit.Ramp(seed, 8000)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// benchsealRun runs `benchseal run args...` in dir as a real process.
func benchsealRun(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("benchseal", append([]string{"run"}, args...)...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

func readJSONFile(t *testing.T, path, schema string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if schema != "" {
		if err := schemas.Validate(schema, b); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// walkFor fails if any file under dir holds one of the secrets.
func walkFor(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", p, s)
			}
		}
		return nil
	})
	if n < 10 {
		t.Errorf("only %d files under %s", n, dir)
	}
}

// recomputed checks that claims.json is what the run directory recomputes
// to, telemetry included, and returns it.
func recomputed(t *testing.T, out string) schemas.Claims {
	t.Helper()
	run, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(out))
	if err != nil {
		t.Fatal(err)
	}
	again, err := claims.Compute(run, recs, claims.WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	var cl schemas.Claims
	readJSONFile(t, filepath.Join(out, "claims.json"), "claims", &cl)
	ab, _ := json.Marshal(again)
	cb, _ := json.Marshal(cl)
	if !bytes.Equal(ab, cb) {
		t.Errorf("claims.json differs from the claims recomputed from the run directory:\n%s\n%s", cb, ab)
	}
	return cl
}

// hostCPUMeans is, per level and repeat of target a, the mean cpu_pct of
// the telemetry/host.jsonl samples from the first measured start_ns to
// the last measured end_ns, read straight from the run directory.
func hostCPUMeans(t *testing.T, out string) map[[2]int]float64 {
	t.Helper()
	type span struct{ from, to int64 }
	win := map[[2]int]span{}
	files, _ := filepath.Glob(filepath.Join(out, "records", "a", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var r schemas.Record
			if err := json.Unmarshal(l, &r); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if r.Phase != schemas.PhaseMeasure {
				continue
			}
			k := [2]int{r.Concurrency, r.Repeat}
			w, seen := win[k]
			if !seen || r.StartNs < w.from {
				w.from = r.StartNs
			}
			if !seen || r.EndNs > w.to {
				w.to = r.EndNs
			}
			win[k] = w
		}
	}
	// The window reaches out to the samples taken at its edges.
	sb, err := os.ReadFile(filepath.Join(out, "telemetry/steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(sb), []byte("\n")) {
		var st schemas.StepTelemetry
		if err := json.Unmarshal(l, &st); err != nil {
			t.Fatalf("steps.jsonl: %v", err)
		}
		k := [2]int{st.Concurrency, st.Repeat}
		if w, ok := win[k]; ok && st.Target == "a" && st.SampleStartNs != nil && st.SampleEndNs != nil {
			w.from, w.to = min(w.from, *st.SampleStartNs), max(w.to, *st.SampleEndNs)
			win[k] = w
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "telemetry/host.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var host []schemas.HostSample
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var h schemas.HostSample
		if err := json.Unmarshal(l, &h); err != nil {
			t.Fatalf("host.jsonl: %v", err)
		}
		host = append(host, h)
	}
	means := map[[2]int]float64{}
	for k, w := range win {
		var sum float64
		var n int
		for _, h := range host {
			if h.CPUPct != nil && h.TNs >= w.from && h.TNs <= w.to {
				sum += *h.CPUPct
				n++
			}
		}
		if n > 0 {
			means[k] = sum / float64(n)
		}
	}
	return means
}

var launchLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (stdout|stderr|benchseal) `)

func TestRunLaunchSim(t *testing.T) {
	dir := t.TempDir()
	writeTestWAV(t, filepath.Join(dir, "a.wav"), 37)
	const (
		hfToken  = "hf_launchTokenNeverWritten0123456789"
		skToken  = "sk-printedTokenNeverWritten0123456789"
		cfgToken = "sk-configTokenNeverWritten0123456789"
		apiKey   = "sk-apiKeyNeverWritten0123456789abc"
	)
	os.WriteFile(filepath.Join(dir, "engine.json"), []byte(`{"max_num_seqs": 64, "api_key": "`+cfgToken+`"}`+"\n"), 0o644)
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	launch := fmt.Sprintf("a=HF_TOKEN=%s sh -c 'echo using token %s; exec benchseal sim --addr 127.0.0.1:%d --base-latency 40ms --log-requests'", hfToken, skToken, port)
	// --gpu is refused where NVML is missing: GPU 0 is the NVML stub's.
	gpuFlag, wantGPUs := []string{}, 0
	if fingerprint.NVMLBuiltIn && runtime.GOOS == "linux" {
		t.Setenv("LD_LIBRARY_PATH", nvmlstub.Build(t, nvmlstub.Current))
		gpuFlag, wantGPUs = []string{"--gpu", "a=0"}, 1
	}
	code, stdout, stderr := benchsealRun(t, dir, append(gpuFlag, "--target", "a="+url, "--launch", launch, "--audio", "a.wav",
		"--concurrency", "1,2", "--requests", "8", "--repeats", "2", "--sample-interval", "10ms", "--redact-host",
		"--server-config", "a=engine.json", "--api-key", apiKey, "--stop-grace", "10s",
		"--out", "out", "--seal", "out.tar.zst")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "out")

	// launch.log: every line stamped, the server's output and benchseal's notes.
	logb, err := os.ReadFile(filepath.Join(out, "servers/a/launch.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(logb), "\n"), "\n")
	for _, l := range lines {
		if !launchLogLine.MatchString(l) {
			t.Errorf("launch.log line without a timestamp: %q", l)
		}
	}
	for _, want := range []string{"stdout using token [REDACTED]", "listening on " + url, "benchseal ready: ", "POST /v1/audio/transcriptions", "benchseal stop: SIGTERM", "benchseal exited: "} {
		if !strings.Contains(string(logb), want) {
			t.Errorf("launch.log lacks %q:\n%s", want, logb)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.launch-a.log")); err == nil {
		t.Error("the pending launch log was left beside the run directory")
	}
	var lj schemas.Launch
	readJSONFile(t, filepath.Join(out, "servers/a/launch.json"), "launch", &lj)
	if lj.ReadyAt == nil || lj.ReadyAfterS == nil || lj.EndedAt == nil || lj.StoppedBy != "sigterm" || lj.DiedEarly ||
		lj.Log != "servers/a/launch.log" || !strings.Contains(lj.Command, "HF_TOKEN=[REDACTED]") {
		t.Errorf("launch.json: %+v", lj)
	}

	var run schemas.Run
	readJSONFile(t, filepath.Join(out, "run.json"), "run", &run)
	tg := run.Targets[0]
	if !run.Complete || tg.LaunchLog != "servers/a/launch.log" || !strings.Contains(tg.LaunchCommand, "benchseal sim") ||
		len(tg.ConfigFiles) != 1 || tg.ConfigFiles[0] != "servers/a/config/engine.json" || len(tg.GPUs) != wantGPUs {
		t.Errorf("run.json target: %+v", tg)
	}
	cfg, _ := os.ReadFile(filepath.Join(out, "servers/a/config/engine.json"))
	if !bytes.Contains(cfg, []byte(`"max_num_seqs": 64`)) {
		t.Errorf("config copy: %s", cfg)
	}

	// env/: the three documents validate; no GPU here is a note, not an error.
	var client schemas.ClientInfo
	var host schemas.HostInfo
	var gpu schemas.GPUInfo
	readJSONFile(t, filepath.Join(out, "env/client.json"), "client", &client)
	readJSONFile(t, filepath.Join(out, "env/host.json"), "host", &host)
	readJSONFile(t, filepath.Join(out, "env/gpu.json"), "gpu", &gpu)
	if !host.HostnameRedacted || host.Hostname != "[REDACTED]" {
		t.Errorf("host.json hostname %q", host.Hostname)
	}
	if !gpu.Available && gpu.Reason == "" {
		t.Error("gpu.json: not available without a reason")
	}
	if len(client.Command) == 0 || strings.Contains(strings.Join(client.Command, " "), apiKey) {
		t.Errorf("client.json command: %q", client.Command)
	}
	steps, _ := os.ReadFile(filepath.Join(out, "telemetry/steps.jsonl"))
	if err := schemas.ValidateLines("step_telemetry", steps); err != nil {
		t.Error(err)
	}

	// claims: cache hits counted and zero (every request sent its own
	// variant); host CPU present and equal to the mean cpu_pct of the
	// telemetry/host.jsonl samples in the measured window, recomputed here
	// from the raw files.
	cl := recomputed(t, out)
	if n := len(bytes.Split(bytes.TrimSpace(steps), []byte("\n"))); n != 4 {
		t.Fatalf("%d steps.jsonl lines, want 4", n)
	}
	hostCPUMean := hostCPUMeans(t, out)
	for _, lv := range cl.Targets[0].Levels {
		for r, m := range lv.Repeats {
			if m.CacheHits == nil || *m.CacheHits != 0 {
				t.Errorf("c=%d r=%d: cache_hits %v, want 0", lv.Concurrency, r+1, m.CacheHits)
			}
			want, ok := hostCPUMean[[2]int{lv.Concurrency, r + 1}]
			if m.HostCPUMean == nil || !ok || *m.HostCPUMean != want {
				t.Errorf("c=%d r=%d: host_cpu_mean %v in claims, host.jsonl says %v (%v)", lv.Concurrency, r+1, m.HostCPUMean, want, ok)
			}
		}
	}

	// No secret anywhere, nor the hostname.
	secrets := []string{hfToken, skToken, cfgToken, apiKey}
	if h, err := os.Hostname(); err == nil && len(h) >= 6 {
		secrets = append(secrets, h)
	}
	walkFor(t, out, secrets...)

	// The bundle: its signature and every subject check out.
	f, err := os.Open(filepath.Join(dir, "out.tar.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := bundle.Open(f, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := b.EmbeddedKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Verify(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CheckSubjects(s); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range b.Entries {
		names[e.Name] = true
	}
	for _, want := range []string{"servers/a/launch.json", "servers/a/launch.log", "telemetry/steps.jsonl", "env/gpu.json"} {
		if !names[want] {
			t.Errorf("bundle lacks %s", want)
		}
	}
	if !strings.HasPrefix(stdout, "") || !strings.Contains(stdout, "out.tar.zst") {
		t.Errorf("stdout: %q", stdout)
	}
}

// Without perturbation and with the server's cache on, the cache counters
// grow and claims say so.
func TestRunLaunchCacheHits(t *testing.T) {
	dir := t.TempDir()
	writeTestWAV(t, filepath.Join(dir, "a.wav"), 37)
	port := freePort(t)
	code, _, stderr := benchsealRun(t, dir, "--target", fmt.Sprintf("a=http://127.0.0.1:%d", port),
		"--launch", fmt.Sprintf("a=benchseal sim --addr 127.0.0.1:%d --base-latency 5ms --cache", port),
		"--audio", "a.wav", "--concurrency", "2", "--requests", "6", "--repeats", "2", "--no-perturb", "--out", "out")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	cl := recomputed(t, filepath.Join(dir, "out"))
	for r, m := range cl.Targets[0].Levels[0].Repeats {
		// Every measured request (and the warm-ups after the first) hits.
		if m.CacheHits == nil || *m.CacheHits < 6 {
			t.Errorf("repeat %d: cache_hits %v, want at least 6", r+1, m.CacheHits)
		}
	}
}

// A launched server that dies mid-run: the run says so, stops measuring
// it, keeps what it measured, is marked incomplete and exits 1.
func TestRunLaunchCrash(t *testing.T) {
	dir := t.TempDir()
	writeTestWAV(t, filepath.Join(dir, "a.wav"), 37)
	port := freePort(t)
	// The wrapper kills the server once ten records are on disk, then
	// exits 3: an honest crash in the middle of a step.
	crash := fmt.Sprintf(`a=sh -c 'benchseal sim --addr 127.0.0.1:%d --base-latency 20ms & pid=$!; `+
		`while [ "$(cat out/records/a/*.jsonl 2>/dev/null | wc -l)" -lt 10 ]; do sleep 0.05; done; kill -9 $pid; exit 3'`, port)
	code, _, stderr := benchsealRun(t, dir, "--target", fmt.Sprintf("a=http://127.0.0.1:%d", port), "--launch", crash,
		"--audio", "a.wav", "--concurrency", "2", "--requests", "400", "--repeats", "2", "--out", "out")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	for _, want := range []string{"benchseal: warning: server a exited during the run (exit status 3)",
		"benchseal: error: run: server a exited during the run (exit status 3)", "kept what was measured in out"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	out := filepath.Join(dir, "out")
	var run schemas.Run
	readJSONFile(t, filepath.Join(out, "run.json"), "run", &run)
	if run.Complete || !strings.Contains(run.Incomplete, "server a exited during the run") {
		t.Errorf("run.json: complete %v, incomplete %q", run.Complete, run.Incomplete)
	}
	ev := 0
	for _, e := range run.Events {
		if e.Kind == "server_exited" && e.Target == "a" {
			ev++
		}
	}
	if ev != 1 {
		t.Errorf("events: %+v", run.Events)
	}
	var lj schemas.Launch
	readJSONFile(t, filepath.Join(out, "servers/a/launch.json"), "launch", &lj)
	if !lj.DiedEarly || lj.ExitCode == nil || *lj.ExitCode != 3 || lj.StoppedBy != "" {
		t.Errorf("launch.json: %+v", lj)
	}
	if _, err := os.Stat(filepath.Join(out, "records/a/c2-r2.jsonl")); err == nil {
		t.Error("the second repeat ran against a dead server")
	}
	cl := recomputed(t, out)
	m := cl.Targets[0].Levels[0].Repeats[0]
	if m.Requests >= 400 || m.Succeeded < 8 {
		t.Errorf("claims of the cut step: %d requests, %d succeeded", m.Requests, m.Succeeded)
	}
}
