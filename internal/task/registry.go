package task

import (
	"fmt"
	"slices"
	"sync"

	"github.com/benchseal/benchseal/schemas"
)

var (
	mu       sync.RWMutex
	registry = map[string]Task{ASR.Name(): ASR}
)

// Register adds t under t.Name(), for Lookup and ForRun. A name taken
// already panics: two tasks of one name would make a run's record of its
// task ambiguous. Tasks register from an init function (or a test).
func Register(t Task) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := registry[t.Name()]; ok || t.Name() == "" {
		panic(fmt.Sprintf("task: %q registered twice or empty", t.Name()))
	}
	registry[t.Name()] = t
}

// UnknownError is a task name no implementation is registered under.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("the run's task %q is not one this benchseal knows (it knows %v)", e.Name, Names())
}

// Lookup returns the task registered under name. It never falls back to
// ASR: an unknown name, the empty one included, is an *UnknownError.
func Lookup(name string) (Task, error) {
	mu.RLock()
	t, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return nil, &UnknownError{name}
	}
	return t, nil
}

// DefaultName is the task of a run.json or a command that names none:
// ASR, the only task before run.json recorded one. Named and NameOf are
// the places that apply it.
const DefaultName = "asr"

// Named returns the task registered under name, the empty name being
// DefaultName (a run with no --task, a run.json without protocol.task);
// any other unknown name is an *UnknownError.
func Named(name string) (Task, error) {
	if name == "" {
		name = DefaultName
	}
	return Lookup(name)
}

// ForRun returns the task run.json records (protocol.task), by NameOf.
func ForRun(run *schemas.Run) (Task, error) { return Lookup(NameOf(run)) }

// NameOf is the name of the task run.json records (protocol.task). A run
// without it was made before the task was recorded, when ASR was the
// only task: absent is DefaultName.
func NameOf(run *schemas.Run) string {
	if run.Protocol.Task == "" {
		return DefaultName
	}
	return run.Protocol.Task
}

// Names lists the registered tasks, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
