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

// withtsaserver CHAIN -- COMMAND ARGS...: starts Sigstore's own
// timestamp-server (on PATH; .ci/run installs it) on a free loopback port
// with its in-memory signer, writes the chain it serves to CHAIN, runs
// COMMAND with every {tsa} replaced by its time-stamp URL, stops the
// server and exits with COMMAND's status.
func withTSAServer(args []string) error {
	i := slices.Index(args, "--")
	if i != 1 || i == len(args)-1 {
		return scriptUsagef("withtsaserver CHAIN -- COMMAND ARGS...")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := exec.Command("timestamp-server", "serve", "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--timestamp-signer", "memory", "--disable-ntp-monitoring")
	srv.Stdout, srv.Stderr = nil, nil
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(os.Interrupt); srv.Wait() }()
	base := fmt.Sprintf("http://127.0.0.1:%d/api/v1/timestamp", port)
	var chain []byte
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(base + "/certchain")
		if err != nil {
			continue
		}
		chain, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		chain = nil
	}
	if chain == nil {
		return errors.New("timestamp-server did not serve its chain within 30 s")
	}
	if err := os.WriteFile(args[0], chain, 0o644); err != nil {
		return err
	}
	return runReplaced(args[i+1:], strings.NewReplacer("{tsa}", base))
}
