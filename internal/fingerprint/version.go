package fingerprint

import (
	"runtime"
	"runtime/debug"
)

// version is set at link time: -ldflags "-X github.com/benchseal/benchseal/internal/fingerprint.version=v1.2.3".
var version string

// Version is the benchseal version: the link-time version, else the module
// version the binary was built from, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// GoVersion is the Go toolchain that built the running binary.
func GoVersion() string { return runtime.Version() }
