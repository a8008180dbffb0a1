package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// The sealed launch commands come back with each redacted value given,
// named by the variable or flag it follows and written as /bin/sh reads
// it; the values are held as secrets, so redacting the command again
// gives the sealed text back.
func TestLaunchCommands(t *testing.T) {
	s := sealedRun()
	s.Run.Targets[0].LaunchCommand = `HF_TOKEN=[REDACTED] vllm serve m --port 8000 --api-key [REDACTED] --x-token='[REDACTED]'`
	s.Run.Targets[1].LaunchCommand = "sglang-omni serve --port 9000"
	vals := map[string]string{"HF_TOKEN": "hfLaunchValueNeverWritten01", "api-key": "it's a key 0123456789", "x-token": "quoted'Value0123456789"}
	cmds, short, err := s.LaunchCommands(session.ReplayLaunch{Values: vals})
	if err != nil || len(short) != 0 {
		t.Fatalf("err = %v, short = %v", err, short)
	}
	want := `HF_TOKEN=hfLaunchValueNeverWritten01 vllm serve m --port 8000 --api-key 'it'\''s a key 0123456789' --x-token='quoted'\''Value0123456789'`
	if cmds["a"] != want || cmds["b"] != "sglang-omni serve --port 9000" {
		t.Errorf("commands = %q,\nwant a: %q", cmds, want)
	}
	if args := fingerprint.LaunchArgs(cmds["a"]); !slices.Contains(args, "it's a key 0123456789") || !slices.Contains(args, "--x-token=quoted'Value0123456789") {
		t.Errorf("the shell would read %q", args)
	}
	if got := fingerprint.Redact(cmds["a"]); strings.Contains(got, "NeverWritten") || strings.Contains(got, "0123456789") {
		t.Errorf("redacted again: %q", got)
	}
	wantOv := []string{"launch value HF_TOKEN given (not recorded)", "launch value api-key given (not recorded)", "launch value x-token given (not recorded)"}
	if !slices.Equal(s.Origin.Overrides, wantOv) {
		t.Errorf("overrides = %q", s.Origin.Overrides)
	}
}

// Whatever keeps the sealed commands from starting is listed at once:
// a redacted value not given (named, or following no name), a value given
// that no command redacts, a target without a command, and a URL moved
// off the port the command listens on. --launch NAME=CMD replaces a
// command, and --only leaves targets out.
func TestLaunchCommandsRefused(t *testing.T) {
	s := sealedRun()
	s.Run.Targets[0].URL = "http://127.0.0.1:8000"
	s.Run.Targets[0].LaunchCommand = "HF_TOKEN=[REDACTED] vllm serve m --port 8000 --hf [REDACTED]"
	_, _, err := s.LaunchCommands(session.ReplayLaunch{Values: map[string]string{"HF_HOME": "/x"},
		URLs: map[string]string{"a": "http://127.0.0.1:8001"}})
	var le *session.LaunchError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a *LaunchError", err)
	}
	if !slices.Equal(le.NoCommand, []string{"b"}) || !slices.Equal(le.Unused, []string{"HF_HOME"}) ||
		!slices.Equal(le.Redacted, []session.RedactedSlot{{Target: "a", Key: "HF_TOKEN"}, {Target: "a", Key: "hf"}}) ||
		len(le.PortMoved) != 1 || !strings.HasPrefix(le.PortMoved[0], "a: sealed port 8000") {
		t.Errorf("LaunchError = %+v", le)
	}

	s = sealedRun()
	s.Run.Targets[0].LaunchCommand = "echo token [REDACTED]; vllm serve m"
	_, _, err = s.LaunchCommands(session.ReplayLaunch{Only: []string{"a"}})
	if !errors.As(err, &le) || !slices.Equal(le.Redacted, []session.RedactedSlot{{Target: "a"}}) || len(le.NoCommand) != 0 {
		t.Errorf("a value that follows no name: err = %v", err)
	}
	cmds, _, err := s.LaunchCommands(session.ReplayLaunch{Only: []string{"a"}, Commands: map[string]string{"a": "vllm serve m2"}})
	if err != nil || len(cmds) != 1 || cmds["a"] != "vllm serve m2" {
		t.Errorf("--launch a=CMD: %q, %v", cmds, err)
	}
	if want := "target a launched with vllm serve m2 (sealed: echo token [REDACTED]; vllm serve m)"; !slices.Contains(s.Origin.Overrides, want) {
		t.Errorf("overrides = %q, want %q", s.Origin.Overrides, want)
	}
}

// A server whose URL's address already accepts connections is not
// launched: the session would measure whatever listens there.
func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out := filepath.Join(t.TempDir(), "run")
	s, err := session.Start(context.Background(), session.Config{Out: out,
		Plan:         bench.Plan{Targets: []bench.Target{{Name: "a", URL: "http://" + l.Addr().String()}}},
		Servers:      session.Servers{Launch: map[string]string{"a": "sleep 60"}},
		ReadyTimeout: bench.DefaultTimeout, StopGrace: session.DefaultStopGrace})
	defer s.Stop()
	var pe *session.PortInUseError
	if !errors.As(err, &pe) || pe.Target != "a" || pe.Addr != l.Addr().String() {
		t.Fatalf("err = %v, want a *PortInUseError for a at %s", err, l.Addr())
	}
	if _, err := os.Stat(session.PendingLog(out, "a")); err == nil {
		t.Error("the server was launched anyway (it has a log)")
	}
}

// The environment diff: the same value is same, another is differs, one
// side without it is not observed with what was missing; a hardware
// difference is named by HardwareDiffers, a driver's is not.
func TestEnvDiff(t *testing.T) {
	s := sealedRun()
	s.Run.Targets = s.Run.Targets[:1]
	s.Run.Targets[0].Model = "m"
	s.Run.Targets[0].LaunchCommand = "vllm serve m --max-num-seqs 64 --revision abc"
	mem := uint64(80 << 30)
	gpu := func(name, driver string) []byte {
		return mustJSON(t, schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, DriverVersion: driver,
			GPUs: []schemas.GPUDevice{{Index: 0, Name: name, MemoryTotalBytes: &mem}, {Index: 1, Name: "other"}}})
	}
	probes := func(version string) []byte {
		return mustJSON(t, schemas.ServerCapture{Schema: schemas.ProbeSchema, Target: "a", Probes: []schemas.Probe{
			{Path: "/v1/models", Status: 200, Body: `{"data":[{"id":"m","root":"/models/m","owned_by":"vllm"}]}`},
			{Path: "/version", Status: 200, Body: `{"version":"` + version + `"}`}}})
	}
	s.Files = map[string][]byte{schemas.GPUInfoFile: gpu("NVIDIA H100 80GB HBM3", "550.1"),
		schemas.HostInfoFile:           mustJSON(t, schemas.HostInfo{Schema: schemas.HostSchema, CPUs: 64}),
		"servers/a/probes-before.json": probes("0.10.0")}
	replay := map[string][]byte{schemas.GPUInfoFile: gpu("NVIDIA A100-SXM4-80GB", "560.2"),
		"servers/a/probes-before.json": probes("0.11.0")}
	rt := s.Run.Targets[0]
	rt.LaunchCommand = "vllm serve m --max-num-seqs 32"
	d := s.EnvDiff(replay, []schemas.Target{rt})
	got := map[string]schemas.ReplayDiffRow{}
	for _, r := range d.Rows {
		got[r.Item] = r
	}
	for item, want := range map[string]string{
		session.ItemEngine: "same", session.ItemEngineVersion: "differs", session.ItemModel: "same",
		session.ItemModelRevision: "not observed", "knob " + fingerprint.KnobMaxRunning: "differs",
		"knob " + fingerprint.KnobDType: "not observed", session.ItemGPUModel: "differs", session.ItemGPUDriver: "differs",
		session.ItemGPUCount: "same", session.ItemGPUMemory: "same", session.ItemHostCores: "not observed",
	} {
		if got[item].State != want {
			t.Errorf("%s: %+v, want %s", item, got[item], want)
		}
	}
	if r := got[session.ItemModel]; r.Sealed != "m (root /models/m)" {
		t.Errorf("model row %+v", r)
	}
	if r := got["knob "+fingerprint.KnobMaxRunning]; r.SealedFrom != "declared: launch command --max-num-seqs" {
		t.Errorf("knob row %+v", r)
	}
	if r := got[session.ItemHostCores]; r.Missing != "replay: env/host.json was not recorded" {
		t.Errorf("host cores row %+v", r)
	}
	if r := got[session.ItemModelRevision]; r.Sealed != "abc" || !strings.HasPrefix(r.Missing, "replay: ") {
		t.Errorf("revision row %+v", r)
	}
	hw := d.HardwareDiffers()
	if want := []string{"gpu model (sealed NVIDIA H100 80GB HBM3, replay NVIDIA A100-SXM4-80GB)"}; !slices.Equal(hw, want) {
		t.Errorf("HardwareDiffers = %q, want %q", hw, want)
	}
	b := mustJSON(t, d)
	if err := schemas.Validate("replay_diff", b); err != nil {
		t.Errorf("env/replay-diff.json: %v\n%s", err, b)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
