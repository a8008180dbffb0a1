package main

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/tlog"
	"github.com/benchseal/benchseal/internal/tsa"
)

func init() {
	// withtsa [-skew=DURATION] STATE -- COMMAND ARGS...: starts a local
	// RFC 3161 authority on loopback (tsa.Authority, its clock moved by
	// DURATION): the one kept in the folder STATE, or a new one kept there
	// (STATE/chain.pem is its chain, leaf then root), and a local Rekor
	// log (tlog.Local, its key in STATE/log.pub, made anew each time);
	// runs COMMAND with every {tsa} and {log} in its arguments replaced by
	// their URLs, and exits with COMMAND's status.
	scriptCmds["withtsa"] = withTSA
	scriptCmds["withtsaserver"] = withTSAServer
}

func withTSA(args []string) error {
	var skew time.Duration
	if len(args) > 0 && strings.HasPrefix(args[0], "-skew=") {
		d, err := time.ParseDuration(strings.TrimPrefix(args[0], "-skew="))
		if err != nil {
			return scriptUsagef("withtsa -skew=DURATION: " + err.Error())
		}
		skew, args = d, args[1:]
	}
	i := slices.Index(args, "--")
	if i != 1 || i == len(args)-1 {
		return scriptUsagef("withtsa [-skew=DURATION] STATE -- COMMAND ARGS...")
	}
	a, err := scriptAuthority(args[0])
	if err != nil {
		return err
	}
	a.Now = func() time.Time { return time.Now().Add(skew) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a}
	go srv.Serve(ln)
	defer srv.Close()
	url := fmt.Sprintf("http://%s/api/v1/timestamp", ln.Addr())
	l, err := tlog.NewLocal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(args[0], "log.pub"), l.PublicKeyPEM(), 0o644); err != nil {
		return err
	}
	lln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	lsrv := &http.Server{Handler: l}
	go lsrv.Serve(lln)
	defer lsrv.Close()
	return runReplaced(args[i+1:], strings.NewReplacer("{tsa}", url, "{log}", "http://"+lln.Addr().String()))
}

// runReplaced runs the command args with r applied to each argument, with
// the script's standard streams, and returns its exit as the error.
func runReplaced(args []string, r *strings.Replacer) error {
	cmdArgs := slices.Clone(args)
	for k := range cmdArgs {
		cmdArgs[k] = r.Replace(cmdArgs[k])
	}
	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee
	}
	return err
}

// scriptAuthority loads the authority kept in dir, or makes one and keeps
// it there.
func scriptAuthority(dir string) (*tsa.Authority, error) {
	chainFile, keyFile := filepath.Join(dir, "chain.pem"), filepath.Join(dir, "key.pem")
	if b, err := os.ReadFile(chainFile); err == nil {
		certs, err := tsa.ParseChain(b)
		if err != nil || len(certs) != 2 {
			return nil, fmt.Errorf("%s: want the leaf and the root (%v)", chainFile, err)
		}
		kb, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, err
		}
		blk, _ := pem.Decode(kb)
		if blk == nil {
			return nil, fmt.Errorf("%s: no PEM", keyFile)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		return &tsa.Authority{Leaf: certs[0], Root: certs[1], Key: k.(crypto.Signer)}, nil
	}
	a, err := tsa.NewAuthority()
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(a.Key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	return a, os.WriteFile(chainFile, a.ChainPEM(), 0o644)
}

// tsaMetricsPort is the port timestamp-server always binds for its
// Prometheus metrics (pkg/server/prometheus.go: Addr ":2112", no flag moves
// it); when another process holds it, the server exits at once.
const tsaMetricsPort = 2112

// tsaMetricsPortFree says, before timestamp-server starts, that the port it
// will bind for its metrics is taken, naming it: otherwise the server dies
// on start and the script only sees that it never served.
func tsaMetricsPortFree() error {
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", tsaMetricsPort))
	if err != nil {
		return fmt.Errorf("port %d is taken (timestamp-server always binds it for its metrics, on every interface; "+
			"stop what listens there: ss -ltnp 'sport = :%d'): %w", tsaMetricsPort, tsaMetricsPort, err)
	}
	return ln.Close()
}

// withtsaserver CHAIN -- COMMAND ARGS...: starts Sigstore's own
// timestamp-server (on PATH; .ci/run installs it) on a free loopback port
// with its in-memory signer, writes the chain it serves to CHAIN, runs
// COMMAND with every {tsa} replaced by its time-stamp URL, stops the
// server and exits with COMMAND's status. It fails at once, naming the
// port, when timestamp-server's metrics port is taken, and with the
// server's own last words when it exits before serving.
func withTSAServer(args []string) error {
	i := slices.Index(args, "--")
	if i != 1 || i == len(args)-1 {
		return scriptUsagef("withtsaserver CHAIN -- COMMAND ARGS...")
	}
	if err := tsaMetricsPortFree(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := exec.Command("timestamp-server", "serve", "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--timestamp-signer", "memory", "--disable-ntp-monitoring")
	var out tailBuffer
	srv.Stdout, srv.Stderr = &out, &out
	if err := srv.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		srv.Process.Signal(os.Interrupt)
		<-exited
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d/api/v1/timestamp", port)
	var chain []byte
	for start := time.Now(); chain == nil && time.Since(start) < 30*time.Second; {
		select {
		case err := <-exited:
			exited <- err // for the deferred stop
			return fmt.Errorf("timestamp-server exited before serving (%v): %s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(base + "/certchain")
		if err != nil {
			continue
		}
		chain, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			chain = nil
		}
	}
	if chain == nil {
		return fmt.Errorf("timestamp-server did not serve its chain within 30 s: %s", out.String())
	}
	if err := os.WriteFile(args[0], chain, 0o644); err != nil {
		return err
	}
	return runReplaced(args[i+1:], strings.NewReplacer("{tsa}", base))
}

// tailBuffer keeps the last 2 KB written to it, safe for the two streams
// of one process.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if n := len(b.buf) - 2048; n > 0 {
		b.buf = b.buf[n:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}

// With timestamp-server's metrics port taken, withtsaserver fails at once
// and names the port, before it starts the server (which would die on it
// and leave the script waiting 30 s for a chain).
func TestTSAServerMetricsPortTaken(t *testing.T) {
	if ln, err := net.Listen("tcp", fmt.Sprintf(":%d", tsaMetricsPort)); err == nil {
		defer ln.Close()
	} // else someone else holds it: taken all the same
	start := time.Now()
	err := withTSAServer([]string{filepath.Join(t.TempDir(), "chain.pem"), "--", "true"})
	if err == nil || !strings.Contains(err.Error(), "port 2112 is taken") {
		t.Fatalf("withtsaserver with :2112 taken: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to say so", d)
	}
}
