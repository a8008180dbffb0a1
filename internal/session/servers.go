package session

import (
	"errors"
	"os"
	"path/filepath"
)

// NewServers is a Servers with every map made.
func NewServers() *Servers {
	return &Servers{Launch: map[string]string{}, LaunchCmd: map[string]string{}, LaunchLog: map[string]string{},
		Configs: map[string][]string{}, GPUs: map[string][]int{}}
}

// Why a server setting is refused (SettingError.Err).
var (
	ErrTwice      = errors.New("given twice")
	ErrLaunched   = errors.New("the server is launched by the session") // its command is recorded and its log captured
	ErrSameName   = errors.New("another config file has the same name") // both would be servers/<target>/config/<name>
	ErrNotRegular = errors.New("not a regular file")
)

// SettingError is a server setting of Target that cannot be used. Err is
// one of the Err values above or the error of stat(Value).
type SettingError struct {
	Target, Value string
	Other         string // ErrSameName: the file already given
	Err           error
}

func (e *SettingError) Error() string { return e.Target + ": " + e.Value + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// AddLaunch sets the command that starts target's server.
func (s *Servers) AddLaunch(target, cmd string) error {
	if _, dup := s.Launch[target]; dup {
		return &SettingError{Target: target, Value: cmd, Err: ErrTwice}
	}
	s.Launch[target] = cmd
	return nil
}

// AddLaunchCmd records how target's server, started elsewhere, was started.
func (s *Servers) AddLaunchCmd(target, text string) error {
	if _, l := s.Launch[target]; l {
		return &SettingError{Target: target, Value: text, Err: ErrLaunched}
	}
	s.LaunchCmd[target] = text
	return nil
}

// AddLaunchLog sets the log file of target's server, started elsewhere.
func (s *Servers) AddLaunchLog(target, file string) error {
	if _, l := s.Launch[target]; l {
		return &SettingError{Target: target, Value: file, Err: ErrLaunched}
	}
	if err := regularFile(target, file); err != nil {
		return err
	}
	s.LaunchLog[target] = file
	return nil
}

// AddConfig adds a config file of target's server; no two may share a
// name, since both are copied into servers/<target>/config/.
func (s *Servers) AddConfig(target, file string) error {
	if err := regularFile(target, file); err != nil {
		return err
	}
	for _, other := range s.Configs[target] {
		if filepath.Base(other) == filepath.Base(file) {
			return &SettingError{Target: target, Value: file, Other: other, Err: ErrSameName}
		}
	}
	s.Configs[target] = append(s.Configs[target], file)
	return nil
}

func regularFile(target, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &SettingError{Target: target, Value: path, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return &SettingError{Target: target, Value: path, Err: ErrNotRegular}
	}
	return nil
}
