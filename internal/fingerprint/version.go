package fingerprint

import (
	"runtime"
	"runtime/debug"
)

// version is set at link time: -ldflags "-X github.com/benchseal/benchseal/internal/fingerprint.version=v1.2.3".
var version string

// Version is the benchseal version: the link-time version, else the module
// version the binary was built from, else the commit a build from a clone
// was stamped with (versionOf), else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(version, bi, ok)
}

// versionOf is Version of a link-time version and a binary's build info:
// a module version as it is (v1.2.3, or Go's pseudo-version, "+dirty"
// included); a build whose module is "(devel)" but whose VCS stamp
// (-buildvcs, on by default for go build in a git clone) names a commit,
// "devel-" and its first 12 hex digits, "-dirty" when the work tree had
// changes (vcs.modified); "devel" when nothing names it.
func versionOf(link string, bi *debug.BuildInfo, ok bool) string {
	if link != "" {
		return link
	}
	if !ok || bi == nil {
		return "devel"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel-" + rev[:min(len(rev), 12)]
	if modified {
		v += "-dirty"
	}
	return v
}

// GoVersion is the Go toolchain that built the running binary.
func GoVersion() string { return runtime.Version() }
