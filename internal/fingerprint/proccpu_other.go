//go:build !unix

package fingerprint

import "errors"

func procCPU() (int64, error) { return 0, errors.New("getrusage: not a unix system") }
