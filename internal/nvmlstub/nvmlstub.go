// Package nvmlstub builds, for tests, a real shared library named
// libnvidia-ml.so.1 that pretends to be two H200s (c/libnvidia-ml.c says what it
// reports), so that benchseal's NVML path (go-nvml) loads and calls it as
// it would the driver's on a GPU host. A test points benchseal at it by
// its path, or by running a subprocess with LD_LIBRARY_PATH set to the
// directory.
//
// One stub per process: go-nvml calls NVML through C symbols that the
// dynamic linker binds, at their first call, to the first library loaded
// that defines them, and keeps bound; a second stub loaded later in the
// same process would be answered by the first one's functions. Tests of
// several variants run each in its own process. Readings that move
// (utilisation, memory, power) follow the tick in $NVMLSTUB_TICK (TickEnv),
// read at each call.
package nvmlstub

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed c/libnvidia-ml.c
var source []byte

// Variant is which driver the library plays.
type Variant string

const (
	Current         Variant = ""                  // every function benchseal calls
	OldDriver       Variant = "OLD_DRIVER"        // before R450: no nvmlDeviceGetMigMode, no nvmlDeviceGetTemperatureV, v1 process lists
	NoTemperature   Variant = "NO_TEMPERATURE"    // no temperature function at all
	DriverNotLoaded Variant = "DRIVER_NOT_LOADED" // nvmlInit answers NVML_ERROR_DRIVER_NOT_LOADED
)

// TickEnv is the environment variable the stub reads its tick k from (0
// when unset); os.Setenv reaches it, since a cgo binary's Setenv sets the
// C environment too.
const TickEnv = "NVMLSTUB_TICK"

// Build compiles the stub with gcc into a new directory and returns that
// directory, which holds libnvidia-ml.so.1. It skips the test when gcc is
// missing.
func Build(t testing.TB, v Variant) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the NVML stub library cannot be built")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "stub.c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-shared", "-fPIC", "-Wall", "-Werror", "-o", filepath.Join(dir, "libnvidia-ml.so.1"), src}
	if v != Current {
		args = append(args, "-D"+string(v))
	}
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("build the NVML stub: %v\n%s", err, out)
	}
	return dir
}
