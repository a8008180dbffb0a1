//go:build unix

package fingerprint

import "golang.org/x/sys/unix"

// uname returns the kernel release and version.
func uname() ([2]string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return [2]string{}, err
	}
	return [2]string{unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:])}, nil
}
