//go:build !unix

package fingerprint

import "errors"

func uname() ([2]string, error) { return [2]string{}, errors.New("not a unix system") }
