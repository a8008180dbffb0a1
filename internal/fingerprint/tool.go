package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/benchseal/benchseal/schemas"
)

// Tool identifies the running client: version, Go version, the modules
// compiled in, and the SHA-256 of the executable itself, so a reader can tell
// which binary produced a run.
func Tool() (schemas.Tool, error) {
	t := schemas.Tool{Name: "benchseal", Version: Version(), GoVersion: GoVersion(), Modules: []schemas.Module{}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Replace != nil {
				m = m.Replace
			}
			t.Modules = append(t.Modules, schemas.Module{Path: m.Path, Version: m.Version, Sum: m.Sum})
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return t, fmt.Errorf("find the running binary: %w", err)
	}
	sum, err := fileSHA256(exe)
	if err != nil {
		return t, fmt.Errorf("hash the running binary: %w", err)
	}
	t.BinarySHA256 = sum
	return t, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
