package main

import (
	"net"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptBuiltins are commands the scripts run in the test process itself,
// for what an exec'd helper cannot do: set the script's environment.
var scriptBuiltins = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// freeport VAR: sets VAR to a TCP port of 127.0.0.1 that was free a
	// moment ago, for a server the script launches on a known address.
	"freeport": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: freeport VAR")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		port := l.Addr().(*net.TCPAddr).Port
		ts.Check(l.Close())
		ts.Setenv(args[0], strconv.Itoa(port))
	},
}
