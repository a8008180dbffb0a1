package score

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadUTF8 is returned (wrapped) for text that is not valid UTF-8.
var ErrBadUTF8 = errors.New("text is not valid UTF-8")

// ErrEmpty is returned (wrapped in a *FileError) for a transcript file with
// no utterances.
var ErrEmpty = errors.New("no utterances")

// OptionError is an unknown normalizer or aligner name.
type OptionError struct {
	Option string // "normalizer" or "aligner"
	Value  string
	Valid  []string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("unknown %s %q (valid: %s)", e.Option, e.Value, strings.Join(e.Valid, ", "))
}

// PairError says which utterance could not be scored and why.
type PairError struct {
	ID    string
	Field string // "ref" or "hyp"
	Err   error
}

func (e *PairError) Error() string {
	return fmt.Sprintf("utterance %q: %s: %v", e.ID, e.Field, e.Err)
}
func (e *PairError) Unwrap() error { return e.Err }

// FileError is a transcript file that could not be read: Line is 1-based,
// 0 when the problem is the whole file.
type FileError struct {
	File string
	Line int
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}
func (e *FileError) Unwrap() error { return e.Err }

// DuplicateIDError is an utterance id that appears twice in one file.
type DuplicateIDError struct {
	ID        string
	FirstLine int
}

func (e *DuplicateIDError) Error() string {
	return fmt.Sprintf("utterance id %q appears again (first on line %d)", e.ID, e.FirstLine)
}

// MissingIDError lists the utterance ids one file has and the other lacks.
type MissingIDError struct {
	File  string   // the file that lacks them
	Other string   // the file that has them
	IDs   []string // in the order Other lists them
}

func (e *MissingIDError) Error() string {
	const show = 5
	ids := e.IDs
	more := ""
	if len(ids) > show {
		more = fmt.Sprintf(" and %d more", len(ids)-show)
		ids = ids[:show]
	}
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("%s lacks %d utterance(s) that %s has: %s%s", e.File, len(e.IDs), e.Other, strings.Join(q, ", "), more)
}
