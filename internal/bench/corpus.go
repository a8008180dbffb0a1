package bench

import "github.com/benchseal/benchseal/internal/task"

// The corpus belongs to the task (internal/task's corpus.go): a Plan's
// Corpus is the task's items. These names keep the runner's callers
// (the CLI, tools, test kits) reading WAV corpora as before.

// Clip is one corpus item (task.Clip).
type Clip = task.Clip

// CorpusError, CorpusErrors and NotWAVError are the corpus loader's
// errors (internal/task).
type (
	CorpusError  = task.CorpusError
	CorpusErrors = task.CorpusErrors
	NotWAVError  = task.NotWAVError
)

// LoadCorpus reads a WAV corpus (task.LoadWAVCorpus).
func LoadCorpus(path string) ([]Clip, error) { return task.LoadWAVCorpus(path) }

// LoadClip reads one WAV clip (task.LoadClip).
func LoadClip(path string) (Clip, error) { return task.LoadClip(path) }
