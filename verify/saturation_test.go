package verify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, saturationKinds) }

// saturationKinds: host samples that show the client saturated.
func saturationKinds() []kind {
	return []kind{
		// A busy host whose workers kept up: the milder finding, with
		// benchseal's own share beside the host's.
		{name: "client-host-busy", class: "protocol", check: verify.CheckProtocol, status: verify.Warn,
			text: "the client host was busy (CPU mean at or above 90 % over the measured window",
			doctor: func(tb testing.TB, dir string) {
				editHost(tb, dir, func(h *schemas.HostSample) { cpu := 99.0; h.CPUPct, h.Load1 = &cpu, 64 })
				// Workers back to back (0.05 ms gaps), whatever this
				// host did to the base run's.
				setGaps(tb, dir, 50*time.Microsecond)
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				for _, f := range rep.Check(verify.CheckProtocol).Findings {
					if f.Kind == verify.KindClientSaturated {
						tb.Errorf("a busy host whose workers kept up is called saturated: %s", f.Reason)
					}
					if f.Kind == verify.KindClientBusy && (!strings.Contains(f.Reason, "load average above its") || !strings.Contains(f.Reason, "its workers were idle") || !strings.HasSuffix(f.Reason, verify.ClientBusyTail)) {
						tb.Errorf("busy finding without the load, the workers' idle share or its tail: %s", f.Reason)
					}
				}
			}},
		// The same host, and the workers' gaps show the client stalled.
		{name: "client-host-saturated", class: "protocol", check: verify.CheckProtocol, status: verify.Warn,
			text: "the client host was saturated: CPU mean at or above 90 % over the measured window",
			doctor: func(tb testing.TB, dir string) {
				editHost(tb, dir, func(h *schemas.HostSample) { cpu := 99.0; h.CPUPct, h.Load1 = &cpu, 64 })
				setGaps(tb, dir, 3*time.Millisecond)
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				for _, f := range rep.Check(verify.CheckProtocol).Findings {
					if f.Kind == verify.KindClientSaturated && (!strings.Contains(f.Reason, "load average above its") || !strings.HasSuffix(f.Reason, verify.ClientSaturatedAdvice)) {
						tb.Errorf("saturation finding without the load or the advice: %s", f.Reason)
					}
				}
			}},
	}
}

// editHost rewrites every sample of telemetry/host.jsonl.
func editHost(tb testing.TB, dir string, fn func(*schemas.HostSample)) {
	tb.Helper()
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(tb, err)
	var out bytes.Buffer
	for i := range tel.Host {
		fn(&tel.Host[i])
		b, err := json.Marshal(tel.Host[i])
		must(tb, err)
		out.Write(append(b, '\n'))
	}
	must(tb, os.WriteFile(filepath.Join(dir, "telemetry/host.jsonl"), out.Bytes(), 0o644))
}

// stallGap is the gap TestClientSaturation's stalled cases lay between a
// worker's two measured requests (20 ms each, of the simulator's): well
// over StalledIdleShare of the workers' time even where a loaded host
// stretched each request to 200 ms (a 3 ms gap once fell under 2 % of a
// slow step's).
const stallGap = 10 * time.Millisecond

// setGaps lays every worker's measured requests gap apart (a request's
// start moved to its worker's previous end + gap, its end kept).
func setGaps(tb testing.TB, dir string, gap time.Duration) {
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "c*-r*.jsonl"))
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		editRecords(tb, dir, filepath.ToSlash(rel), func(recs []schemas.Record) []schemas.Record {
			byWorker := map[int][]int{}
			for i, r := range recs {
				if r.Phase == schemas.PhaseMeasure {
					byWorker[r.Worker] = append(byWorker[r.Worker], i)
				}
			}
			for _, idx := range byWorker {
				slices.SortFunc(idx, func(a, b int) int { return int(recs[a].StartNs - recs[b].StartNs) })
				for j := 1; j < len(idx); j++ {
					r, prev := &recs[idx[j]], recs[idx[j-1]]
					r.StartNs = prev.EndNs + int64(gap)
					if r.FirstByteNs != 0 && r.FirstByteNs < r.StartNs {
						r.FirstByteNs = r.StartNs
					}
				}
			}
			return recs
		})
	}
}

// The client is a suspect only where its own evidence says so: an
// unsaturated sample set and 0.05 ms dispatch gaps give no WARN; CPU at
// 95 % or a load above the host's CPUs at a level's start, with the
// workers keeping up, give the milder "busy" WARN with benchseal's own
// CPU share and its workers' idle share; a dispatch-gap p99 of 10 ms
// (with or without the host's signs) gives the "saturated" WARN, naming
// its signs and ending with the advice.
func TestClientSaturation(t *testing.T) {
	t.Parallel()
	base := makeProbeRun(t, t.TempDir(), probeSpec{pairs: 0})
	var host schemas.HostInfo
	getJSON(t, filepath.Join(base, "env/host.json"), &host)
	saturation := func(dir string) (verify.Kind, string) {
		c, _ := checkOf(verifyDir(t, dir), verify.CheckProtocol)
		for _, f := range c.Findings {
			if f.Kind == verify.KindClientSaturated || f.Kind == verify.KindClientBusy {
				return f.Kind, f.Reason
			}
		}
		return "", ""
	}
	busy, saturated := verify.KindClientBusy, verify.KindClientSaturated
	for _, tc := range []struct {
		name      string
		cpu, load float64
		gap       time.Duration
		kind      verify.Kind
		want      string
	}{
		{"unsaturated", 10, 0.1, 50 * time.Microsecond, "", ""},
		{"cpu", 95, 0.1, 50 * time.Microsecond, busy, "CPU mean at or above 90 % over the measured window in 2 of 2 steps (highest 95 %"},
		{"load", 10, float64(host.CPUs) + 1, 50 * time.Microsecond, busy, "load average above its"},
		{"dispatch gap", 10, 0.1, stallGap, saturated, "dispatch-gap p99 above 1ms in 2 of 2 steps (highest 10.0 ms"},
		{"cpu and dispatch gap", 95, 0.1, stallGap, saturated, "CPU mean at or above 90 % over the measured window in 2 of 2 steps (highest 95 %"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, base, dir)
			editHost(t, dir, func(h *schemas.HostSample) { cpu := tc.cpu; h.CPUPct, h.Load1 = &cpu, tc.load })
			setGaps(t, dir, tc.gap)
			refresh(t, dir)
			kind, got := saturation(dir)
			tail := verify.ClientSaturatedAdvice
			if tc.kind == busy {
				// benchseal's own share, from the real sampler's getrusage.
				tail = "% of the time (highest, "
				if !strings.Contains(got, "benchseal itself used ") || !strings.HasSuffix(got, verify.ClientBusyTail) {
					t.Errorf("busy finding without benchseal's own CPU or its tail: %q", got)
				}
			}
			switch {
			case tc.kind == "" && kind != "":
				t.Errorf("unsaturated samples warned: %s", got)
			case tc.kind != "" && (kind != tc.kind || !strings.Contains(got, tc.want) || !strings.Contains(got, tail)):
				t.Errorf("got %s %q, want %s %q (and %q)", kind, got, tc.kind, tc.want, tail)
			}
		})
	}
}
