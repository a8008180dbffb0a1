package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/klauspost/compress/zstd"
)

// scriptCmds are the helper commands the scripts in testdata/script and
// testdata/e2e run with exec, registered in TestMain next to benchseal
// itself, so that a script builds its inputs in Go (internal/testkit)
// rather than in an embedded Python program. Each says its usage on a wrong call and exits
// 2; a failure exits 1 with the first error.
var scriptCmds = map[string]func([]string) error{
	// mkwav FILE [FRAMES [MULT]]: a 16 kHz mono 16-bit WAV of FRAMES
	// samples (8000: 0.5 s) of testkit.Ramp(MULT) (37).
	"mkwav": mkwav,
	// mkcorpus DIR: a.wav and b.wav (0.5 s each, distinct) with their
	// reference transcripts a.txt and b.txt.
	"mkcorpus": func(args []string) error {
		if len(args) != 1 {
			return scriptUsagef("mkcorpus DIR")
		}
		return mkcorpus(args[0])
	},
	// withsim [-status=N] [SIM FLAGS...] -- COMMAND ARGS...: starts
	// `benchseal sim --addr 127.0.0.1:0 SIM FLAGS`, runs COMMAND with every
	// {sim} in its arguments replaced by the simulator's URL, stops the
	// simulator (SIGINT) and exits with COMMAND's status; with -status=N,
	// exits 0 when that status is N and 1 (saying so) when it is not.
	// COMMAND's stdout and stderr are the script's.
	"withsim": withSim,
	// mkrun DIR: a real run of two targets on one simulator, as the
	// verify scripts use it: mkcorpus corpus, then benchseal run
	// --concurrency 1,3 --requests 4 --repeats 2 --out DIR.
	"mkrun": mkrun,
	// flipbyte IN OUT [MASK]: OUT is IN with its middle byte XORed with
	// MASK (0x10).
	"flipbyte": flipByte,
	// sealforged RUNDIR OUT [KEYFILE]: seals RUNDIR into OUT as a sealer
	// holding the key could without benchseal seal's claims check
	// (session.Seal directly; KEYFILE's password from BENCHSEAL_PASSWORD;
	// ephemeral without KEYFILE), so that scripts can give verify and
	// report a validly signed bundle whose claims are false.
	"sealforged": sealForged,
	// setjson FILE PATH JSON: sets the value at PATH (keys and list
	// indices joined by dots) of the JSON document FILE.
	"setjson": setJSON,
	// nosecret KEYFILE FILE...: fails when a FILE holds "PRIVATE KEY" or
	// any 16 characters of KEYFILE's PEM body.
	"nosecret": noSecret,
	// mkbytes FILE HEX [ZEROS]: FILE is the bytes HEX spells, then ZEROS
	// zero bytes (a header of another format, say).
	"mkbytes": mkBytes,
	// editbundle IN OUT NAME OLD NEW: OUT is the bundle IN with the first
	// OLD in its entry NAME replaced by NEW, repacked (tar, zstd) without
	// resealing: what someone who edits a sealed file produces.
	"editbundle": editBundle,
}

type scriptUsage string

func (e scriptUsage) Error() string { return "usage: " + string(e) }

func scriptUsagef(s string) error { return scriptUsage(s) }

// scriptMain runs a helper command as a process's main.
func scriptMain(f func([]string) error) func() {
	return func() {
		err := f(os.Args[1:])
		var ue scriptUsage
		switch {
		case err == nil:
			os.Exit(0)
		case errors.As(err, &ue):
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		default:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				os.Exit(ee.ExitCode())
			}
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
			os.Exit(1)
		}
	}
}

func mkwav(args []string) error {
	if len(args) < 1 || len(args) > 3 {
		return scriptUsagef("mkwav FILE [FRAMES [MULT]]")
	}
	n := []int{8000, 37}
	for i, a := range args[1:] {
		v, err := strconv.Atoi(a)
		if err != nil || v <= 0 {
			return scriptUsagef("mkwav FILE [FRAMES [MULT]]: FRAMES and MULT are positive integers")
		}
		n[i] = v
	}
	return os.WriteFile(args[0], testkit.PCM16(16000, testkit.Ramp(n[1], n[0])), 0o644)
}

func mkcorpus(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		mult int
		text string
	}{{"a", 37, "the cat sat on the mat"}, {"b", 91, "a dog ran in the park"}} {
		if err := os.WriteFile(filepath.Join(dir, c.name+".wav"), testkit.PCM16(16000, testkit.Ramp(c.mult, 8000)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".txt"), []byte(c.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var listening = regexp.MustCompile(`listening on (\S+)`)

// scriptSim starts `benchseal sim` and returns its URL and a stop function.
func scriptSim(flags []string) (string, func() error, error) {
	cmd := exec.Command("benchseal", append([]string{"sim", "--addr", "127.0.0.1:0"}, flags...)...)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	r := bufio.NewReader(errPipe)
	line, err := r.ReadString('\n')
	m := listening.FindStringSubmatch(line)
	if m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		return "", nil, fmt.Errorf("benchseal sim did not start: %q (%v)", line, err)
	}
	go func() { _, _ = r.WriteTo(scriptDiscard{}) }()
	stop := func() error {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			return nil
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			return errors.New("benchseal sim did not stop within 30s of SIGINT")
		}
	}
	return m[1], stop, nil
}

type scriptDiscard struct{}

func (scriptDiscard) Write(p []byte) (int, error) { return len(p), nil }

func withSim(args []string) error {
	want := -1
	if len(args) > 0 && strings.HasPrefix(args[0], "-status=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-status="))
		if err != nil {
			return scriptUsagef("withsim -status=N: N is an exit status")
		}
		want, args = n, args[1:]
	}
	i := slices.Index(args, "--")
	if i < 0 || i == len(args)-1 {
		return scriptUsagef("withsim [-status=N] [SIM FLAGS...] -- COMMAND ARGS...")
	}
	url, stop, err := scriptSim(args[:i])
	if err != nil {
		return err
	}
	cmdArgs := slices.Clone(args[i+1:])
	for k := range cmdArgs {
		cmdArgs[k] = strings.ReplaceAll(cmdArgs[k], "{sim}", url)
	}
	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()
	if err := stop(); err != nil && runErr == nil {
		return err
	}
	if want < 0 {
		return runErr
	}
	var ee *exec.ExitError
	switch got := 0; {
	case errors.As(runErr, &ee):
		got = ee.ExitCode()
		fallthrough
	case runErr == nil:
		if got != want {
			return fmt.Errorf("%s exited %d, want %d", cmdArgs[0], got, want)
		}
		return nil
	default:
		return runErr
	}
}

func mkrun(args []string) error {
	if len(args) != 1 {
		return scriptUsagef("mkrun DIR")
	}
	if err := mkcorpus("corpus"); err != nil {
		return err
	}
	url, stop, err := scriptSim([]string{"--corpus", "corpus", "--base-latency", "5ms"})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.Command("benchseal", "run", "--target", "a="+url, "--target", "b="+url, "--corpus", "corpus",
		"--concurrency", "1,3", "--requests", "4", "--repeats", "2", "--no-cache-probe", "--out", args[0])
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if err := stop(); err != nil && runErr == nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("benchseal run: %v\n%s", runErr, out.String())
	}
	return nil
}

func flipByte(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return scriptUsagef("flipbyte IN OUT [MASK]")
	}
	mask := uint64(0x10)
	if len(args) == 3 {
		var err error
		if mask, err = strconv.ParseUint(args[2], 0, 8); err != nil || mask == 0 {
			return scriptUsagef("flipbyte IN OUT [MASK]: MASK is a byte, not 0")
		}
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return fmt.Errorf("%s is empty", args[0])
	}
	b[len(b)/2] ^= byte(mask)
	return os.WriteFile(args[1], b, 0o644)
}

func setJSON(args []string) error {
	if len(args) != 3 {
		return scriptUsagef("setjson FILE PATH JSON")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var doc, val any
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	if err := json.Unmarshal([]byte(args[2]), &val); err != nil {
		return fmt.Errorf("value %s: %v", args[2], err)
	}
	keys := strings.Split(args[1], ".")
	cur := doc
	for k, key := range keys {
		last := k == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if _, ok := c[key]; !ok {
				return fmt.Errorf("%s: no %q at %s", args[0], key, strings.Join(keys[:k], "."))
			}
			if last {
				c[key] = val
			}
			cur = c[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(c) {
				return fmt.Errorf("%s: no index %q at %s", args[0], key, strings.Join(keys[:k], "."))
			}
			if last {
				c[i] = val
			}
			cur = c[i]
		default:
			return fmt.Errorf("%s: %s is not an object or a list", args[0], strings.Join(keys[:k], "."))
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(args[0], out, 0o644)
}

func noSecret(args []string) error {
	if len(args) < 2 {
		return scriptUsagef("nosecret KEYFILE FILE...")
	}
	key, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var body []string
	for _, l := range strings.Split(string(key), "\n") {
		if l != "" && !strings.HasPrefix(l, "-----") {
			body = append(body, l)
		}
	}
	if len(body) == 0 {
		return fmt.Errorf("%s has no PEM body", args[0])
	}
	for _, f := range args[1:] {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		s := string(b)
		if strings.Contains(s, "PRIVATE KEY") {
			return fmt.Errorf("%s names a PRIVATE KEY", f)
		}
		for _, l := range body {
			for i := 0; i < max(1, len(l)-15); i += 4 { // any 16 characters of it
				if p := l[i:min(i+16, len(l))]; strings.Contains(s, p) {
					return fmt.Errorf("%s holds %q of the private key", f, p)
				}
			}
		}
	}
	return nil
}

func mkBytes(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return scriptUsagef("mkbytes FILE HEX [ZEROS]")
	}
	b, err := hex.DecodeString(args[1])
	if err != nil {
		return scriptUsagef("mkbytes FILE HEX [ZEROS]: HEX: " + err.Error())
	}
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 0 {
			return scriptUsagef("mkbytes FILE HEX [ZEROS]: ZEROS is a count")
		}
		b = append(b, make([]byte, n)...)
	}
	return os.WriteFile(args[0], b, 0o644)
}

func editBundle(args []string) error {
	if len(args) != 5 {
		return scriptUsagef("editbundle IN OUT NAME OLD NEW")
	}
	in, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := zstd.NewReader(in)
	if err != nil {
		return err
	}
	defer zr.Close()
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out)
	if err != nil {
		return err
	}
	tr, tw := tar.NewReader(zr), tar.NewWriter(zw)
	edited := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if h.Name == args[2] {
			if !bytes.Contains(data, []byte(args[3])) {
				return fmt.Errorf("%s of %s does not hold %q", args[2], args[0], args[3])
			}
			data = bytes.Replace(data, []byte(args[3]), []byte(args[4]), 1)
			h.Size = int64(len(data))
			edited = true
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if !edited {
		return fmt.Errorf("%s has no entry %s", args[0], args[2])
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(args[1], out.Bytes(), 0o644)
}

// The helpers that check something fail when it does not hold: a script
// that relies on nosecret or setjson would otherwise pass for nothing.
func TestScriptCmds(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	body := "MHcCAQEEIAbcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
	os.WriteFile(key, []byte("-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n"+body+"\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n"), 0o600)
	clean, leak := filepath.Join(dir, "clean.txt"), filepath.Join(dir, "leak.txt")
	os.WriteFile(clean, []byte("PASS  2 signature  valid\n"), 0o644)
	os.WriteFile(leak, []byte("error: "+body[20:40]+"\n"), 0o644)
	if err := noSecret([]string{key, clean}); err != nil {
		t.Errorf("nosecret on a clean file: %v", err)
	}
	if err := noSecret([]string{key, clean, leak}); err == nil {
		t.Error("nosecret passed a file holding 20 characters of the key")
	}
	doc := filepath.Join(dir, "c.json")
	os.WriteFile(doc, []byte(`{"targets":[{"levels":[{"rps":1}]}]}`), 0o644)
	if err := setJSON([]string{doc, "targets.0.levels.0.rps", "2.5"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(doc); !strings.Contains(string(b), `"rps": 2.5`) {
		t.Errorf("setjson wrote %s", b)
	}
	if err := setJSON([]string{doc, "targets.1.levels", "0"}); err == nil {
		t.Error("setjson set a path the document does not have")
	}
}

func sealForged(args []string) error {
	if len(args) != 2 && len(args) != 3 {
		return scriptUsagef("sealforged RUNDIR OUT [KEYFILE]")
	}
	ctx := context.Background()
	signer, err := bundle.NewEphemeralSigner()
	if len(args) == 3 {
		signer, err = bundle.LoadSigner(ctx, args[2], func() ([]byte, error) { return []byte(os.Getenv("BENCHSEAL_PASSWORD")), nil })
	}
	if err != nil {
		return err
	}
	_, err = session.Seal(ctx, args[0], args[1], signer, bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: "v0.0.0-test"}}, false)
	return err
}
