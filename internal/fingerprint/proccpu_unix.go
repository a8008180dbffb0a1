//go:build unix

package fingerprint

import "syscall"

// procCPU is benchseal's own CPU time so far, user + system
// (getrusage RUSAGE_SELF: every thread of the process), in ns.
func procCPU() (int64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), nil
}
