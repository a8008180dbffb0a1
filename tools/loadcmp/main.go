package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// roles are the child processes loadcmp starts from its own binary.
var roles = map[string]func([]string) int{
	"server":           serverMain,
	"client-benchseal": func(a []string) int { return clientMain("client-benchseal", a) },
	"client-vegeta":    func(a []string) int { return clientMain("client-vegeta", a) },
	"seal":             sealMain,
	"verify":           verifyMain,
	"open":             openMain,
}

// childEnv marks a re-executed child, so that a test binary (whose own
// flags come first) can tell it apart from a test run.
const childEnv = "LOADCMP_CHILD=1"

func main() {
	if len(os.Args) > 1 {
		if f, ok := roles[os.Args[1]]; ok {
			os.Exit(f(os.Args[2:]))
		}
	}
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	quick, strict   bool
	levels          []int
	n, rounds       int
	sizesMB         []int
	python, script  string
	profileDir, tmp string
	skipLoad        bool
	skipSeal        bool
	lateness        bool      // -lateness: the open-loop send lateness table only (lateness.go)
	rates           []float64 // its offered rates
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.quick, "quick", false, "smoke run: levels 1,16, 200 requests, 8 and 32 MB run directories")
	fs.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	levels := fs.String("levels", "1,16,64,128", "concurrency levels")
	fs.IntVar(&o.n, "n", 3000, "measured requests per client and level")
	fs.IntVar(&o.rounds, "rounds", 1, "repeat the interleaved sweep and report each row's median-throughput round")
	sizes := fs.String("sizes", "100,1000", "run directory sizes for seal/verify, in MB")
	fs.StringVar(&o.python, "python", "/usr/bin/python3", "Python with aiohttp (Debian python3-aiohttp)")
	fs.StringVar(&o.script, "script", "", "the aiohttp client (default: tools/scripts/aiohttp_client.py of this repository)")
	fs.StringVar(&o.profileDir, "cpuprofile", "", "write each Go client's (and verify's) CPU profile into this folder")
	fs.StringVar(&o.tmp, "tmp", "", "where to build run directories and bundles (default: the system temp dir)")
	fs.BoolVar(&o.skipLoad, "skip-load", false, "skip the load generator comparison")
	fs.BoolVar(&o.skipSeal, "skip-seal", false, "skip the seal/verify measurement")
	fs.BoolVar(&o.lateness, "lateness", false, "only the open-loop send lateness of benchseal and vegeta -rate against the null server (-rates, -n)")
	rates := fs.String("rates", "1000,4000", "-lateness: offered rates in requests per second")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for f := range strings.SplitSeq(*rates, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return o, fmt.Errorf("-rates: %q is not a positive rate", f)
		}
		o.rates = append(o.rates, r)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.profileDir != "" {
		// The children write their profiles here; a missing folder would
		// fail every client, and only after it had run.
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return o, fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	if o.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["levels"] {
			*levels = "1,16"
		}
		if !set["n"] {
			o.n = 200
		}
		if !set["sizes"] {
			*sizes = "8,32"
		}
	}
	var err error
	if o.levels, err = ints(*levels); err != nil {
		return o, fmt.Errorf("-levels: %w", err)
	}
	if o.sizesMB, err = ints(*sizes); err != nil {
		return o, fmt.Errorf("-sizes: %w", err)
	}
	if o.n < 1 || o.rounds < 1 {
		return o, errors.New("-n and -rounds must be at least 1")
	}
	return o, nil
}

func ints(s string) ([]int, error) {
	var v []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		v = append(v, n)
	}
	return v, nil
}

func runMain(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loadcmp: error: %v\n", err)
		return 2
	}
	tmp, err := os.MkdirTemp(o.tmp, "loadcmp-")
	if err != nil {
		fmt.Fprintf(stderr, "loadcmp: error: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	if o.lateness {
		if err := latenessSweep(ctx, o, tmp, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "loadcmp: error: %v\n", err)
			return 1
		}
		return 0
	}
	rep := &report{opts: o, ratios: map[string][]float64{}}
	if !o.skipLoad {
		if err := loadSweep(ctx, o, tmp, rep, stderr); err != nil {
			fmt.Fprintf(stderr, "loadcmp: error: %v\n", err)
			return 1
		}
	}
	if !o.skipSeal {
		if err := sealSweep(ctx, o, tmp, rep, stderr); err != nil {
			fmt.Fprintf(stderr, "loadcmp: error: %v\n", err)
			return 1
		}
	}
	missed := rep.write(stdout)
	if missed > 0 && o.strict {
		return 1
	}
	return 0
}

// childResult is a finished child: its stdout JSON decoded into the
// caller's value, and its own CPU and memory from rusage.
type childResult struct {
	CPU  time.Duration // user + system
	Wall time.Duration
}

func self() (string, error) { return os.Executable() }

// runChild runs name args, decodes one JSON value from its stdout into
// out, and reports its rusage.
func runChild(ctx context.Context, timeout time.Duration, name string, args []string, out any) (childResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), childEnv)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	t0 := time.Now()
	err := cmd.Run()
	var res childResult
	res.Wall = time.Since(t0)
	if cmd.ProcessState != nil {
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	what := filepath.Base(name) + " " + strings.Join(args[:min(len(args), 1)], " ")
	if err != nil {
		return res, fmt.Errorf("%s: %v: %s", what, err, strings.TrimSpace(se.String()))
	}
	if err := json.Unmarshal(so.Bytes(), out); err != nil {
		return res, fmt.Errorf("%s: output is not JSON: %v", what, err)
	}
	return res, nil
}

// startServer starts the null server child and returns its URL and a stop
// function.
func startServer(ctx context.Context) (string, func(), error) {
	exe, err := self()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "server")
	cmd.Env = append(os.Environ(), childEnv)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { stdin.Close(); cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		stop()
		return "", nil, fmt.Errorf("null server did not start: %v", err)
	}
	return strings.TrimSpace(line), stop, nil
}

func serverStatsReset(url string) (serverStats, error) {
	var st serverStats
	resp, err := http.Get(url + "/__stats?reset=1")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// writeClip writes the benchmark clip: 6.48 s of 16 kHz 16-bit mono (the
// input size of the published Qwen3-ASR study), a chirp with a little
// noise so that no sample is at full scale.
func writeClip(path string) error {
	const frames = 103680 // 6.48 s * 16000
	rng := rand.New(rand.NewPCG(6, 48))
	b := wavHeader(frames)
	for i := range frames {
		t := float64(i) / 16000
		v := 8000*math.Sin(2*math.Pi*(200+300*t)*t) + float64(rng.IntN(200)-100)
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
	}
	return os.WriteFile(path, b, 0o644)
}

// findScript looks for scripts/aiohttp_client.py in the tools module above
// the working directory (tools/scripts from the repository's root).
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		for _, p := range []string{filepath.Join(dir, "scripts", "aiohttp_client.py"), filepath.Join(dir, "tools", "scripts", "aiohttp_client.py")} {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("tools/scripts/aiohttp_client.py not found above the working directory: give -script")
		}
		dir = parent
	}
}

// row is one client at one level.
type row struct {
	Client       string
	C, N         int
	ReqPerS      float64
	CPUPer1k     float64 // client CPU seconds per 1000 requests sent (warm-ups included), to the end of its work (clientOut.CPUS)
	ProcCPU1k    float64 // the same for the whole child process (rusage): with loadcmp's own reading of the records
	P50, P99     float64 // seconds
	MeanInFlight float64 // req/s × mean latency: Little's law, the time-averaged requests in flight
	GapMean      float64 // seconds a worker waits between requests: (C - MeanInFlight) / req/s
	GapP99       float64 // from benchseal's records (per worker); -1 when the client cannot say
	PeakInFlight int64   // counted by the server
	ClientPeak   int     // from the client's own start/end times
	ServiceP99   float64
	ServerCPU1k  float64 // the server's CPU seconds per 1000 requests of this client
	SendCPU1k    float64 // client CPU per 1000 requests while sending (clientOut.SendCPUS)
	Failed       int
	Err          string
}

var clientNames = []string{"benchseal", "vegeta", "python-aiohttp"}

func loadSweep(ctx context.Context, o options, tmp string, rep *report, stderr io.Writer) error {
	clip := filepath.Join(tmp, "clip.wav")
	if err := writeClip(clip); err != nil {
		return err
	}
	url, stop, err := startServer(ctx)
	if err != nil {
		return err
	}
	defer stop()
	exe, err := self()
	if err != nil {
		return err
	}
	pyOK := exec.Command(o.python, "-c", "import aiohttp").Run() == nil
	script := o.script
	if !pyOK {
		rep.notes = append(rep.notes, fmt.Sprintf("python-aiohttp skipped: %s cannot import aiohttp", o.python))
	} else if script == "" {
		if script, err = findScript(); err != nil {
			return err
		}
	}
	rounds := map[[2]int][]row{} // (level, client) -> one row per round
	for round := range o.rounds {
		for _, c := range o.levels {
			// The order turns every round, so that no client always runs
			// right after another one warmed the machine up.
			order := slices.Clone(clientNames)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, name := range order {
				ci := slices.Index(clientNames, name)
				if name == "python-aiohttp" && !pyOK {
					continue
				}
				var prog string
				var args []string
				switch name {
				case "python-aiohttp":
					prog, args = o.python, []string{script, "--url", url, "--clip", clip, "--c", strconv.Itoa(c), "--n", strconv.Itoa(o.n)}
				default:
					prog = exe
					args = []string{"client-" + name, "-url", url, "-clip", clip, "-c", strconv.Itoa(c), "-n", strconv.Itoa(o.n),
						"-dir", filepath.Join(tmp, fmt.Sprintf("run-%s-c%d-%d", name, c, round))}
					if o.profileDir != "" {
						args = append(args, "-cpuprofile", filepath.Join(o.profileDir, fmt.Sprintf("%s-c%d.pprof", name, c)))
					}
				}
				if _, err := serverStatsReset(url); err != nil {
					return fmt.Errorf("null server stats: %w", err)
				}
				var out clientOut
				stat := readCPUStat()
				cr, err := runChild(ctx, 10*time.Minute, prog, args, &out)
				steal := stealSince(stat)
				st, serr := serverStatsReset(url)
				r := row{Client: name, C: c, N: o.n}
				switch {
				case err != nil:
					r.Err = err.Error()
				case serr != nil:
					r.Err = "null server stats: " + serr.Error()
				default:
					lat := sortedCopy(out.LatencyS)
					r.ReqPerS = float64(out.Succeeded) / out.WindowS
					r.ProcCPU1k = cr.CPU.Seconds() / float64(o.n+c) * 1000
					r.CPUPer1k = r.ProcCPU1k
					if out.CPUS > 0 { // the Python client says nothing: its whole process
						r.CPUPer1k = out.CPUS / float64(o.n+c) * 1000
					}
					r.P50, r.P99 = percentile(lat, 50), percentile(lat, 99)
					if len(lat) > 0 {
						var sum float64
						for _, x := range lat {
							sum += x
						}
						r.MeanInFlight = r.ReqPerS * sum / float64(len(lat))
						r.GapMean = (float64(c) - r.MeanInFlight) / r.ReqPerS
					}
					r.GapP99 = -1
					if len(out.GapS) > 0 {
						r.GapP99 = percentile(sortedCopy(out.GapS), 99)
					}
					r.PeakInFlight, r.ClientPeak, r.ServiceP99 = max(st.MaxInFlight, st.MaxSampled), peakInFlight(out.Intervals), st.ServiceP99S
					r.ServerCPU1k = st.CPUS / float64(o.n+c) * 1000
					r.SendCPU1k = out.SendCPUS / float64(o.n+c) * 1000
					r.Failed = out.Requests - out.Succeeded
					if out.Requests != o.n {
						r.Err = fmt.Sprintf("%d measured requests, want %d", out.Requests, o.n)
					}
					if len(out.Errors) > 0 {
						r.Err = strings.Join(out.Errors, "; ")
					}
				}
				fmt.Fprintf(stderr, "loadcmp: round %d c=%-3d %-15s %8.0f req/s  cpu %.3fs/1k (process %.3f, sending %.3f, server %.3f)  p50 %.2fms p99 %.2fms  peak %d/%d  steal %s %s\n",
					round+1, c, name, r.ReqPerS, r.CPUPer1k, r.ProcCPU1k, r.SendCPU1k, r.ServerCPU1k, r.P50*1e3, r.P99*1e3, r.PeakInFlight, r.ClientPeak, steal, r.Err)
				k := [2]int{c, ci}
				rounds[k] = append(rounds[k], r)
				os.RemoveAll(filepath.Join(tmp, fmt.Sprintf("run-%s-c%d-%d", name, c, round)))
			}
		}
	}
	// Paired ratios: benchseal against each client in the same round, where
	// both saw the same machine; their median is what the targets judge.
	for _, c := range o.levels {
		for ci := 1; ci < len(clientNames); ci++ {
			b, x := rounds[[2]int{c, 0}], rounds[[2]int{c, ci}]
			var ratios, cpu []float64
			for i := range min(len(b), len(x)) {
				if x[i].ReqPerS > 0 {
					ratios = append(ratios, b[i].ReqPerS/x[i].ReqPerS)
				}
				if x[i].CPUPer1k > 0 && b[i].CPUPer1k > 0 {
					cpu = append(cpu, b[i].CPUPer1k/x[i].CPUPer1k)
				}
			}
			if len(ratios) > 0 {
				rep.ratios[fmt.Sprint(clientNames[ci], c)] = ratios
			}
			if len(cpu) > 0 {
				rep.ratios[fmt.Sprint("cpu ", clientNames[ci], c)] = cpu
			}
		}
	}
	for _, c := range o.levels {
		for ci := range clientNames {
			rs := slices.Clone(rounds[[2]int{c, ci}])
			if len(rs) == 0 {
				continue
			}
			slices.SortFunc(rs, func(a, b row) int { return cmpFloat(a.ReqPerS, b.ReqPerS) })
			rep.rows = append(rep.rows, rs[len(rs)/2])
		}
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
