package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Transcript is one utterance of a transcript file.
type Transcript struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// maxLine bounds one line of a transcript file.
const maxLine = 16 << 20

// ReadTranscripts reads a transcript file in either format, told apart by
// its first non-blank line:
//
//   - sclite trn: one utterance per line, `text (utt-id)`, the id in the
//     last parentheses at the end of the line;
//   - JSONL: one object per line, {"id": "...", "text": "..."}.
//
// Blank lines are skipped. name is used in errors (*FileError, wrapping
// ErrBadUTF8, ErrEmpty, *DuplicateIDError or a syntax error).
func ReadTranscripts(r io.Reader, name string) ([]Transcript, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Transcript
	seen := map[string]int{}
	jsonl, decided := false, false
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if !utf8.Valid(b) {
			return nil, &FileError{File: name, Line: line, Err: ErrBadUTF8}
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		}
		s := strings.TrimFunc(string(b), pyIsSpace)
		if s == "" {
			continue
		}
		if !decided {
			jsonl, decided = strings.HasPrefix(s, "{"), true
		}
		var t Transcript
		var err error
		if jsonl {
			t, err = parseJSONLine(s)
		} else {
			t, err = parseTrnLine(s)
		}
		if err != nil {
			return nil, &FileError{File: name, Line: line, Err: err}
		}
		if first, dup := seen[t.ID]; dup {
			return nil, &FileError{File: name, Line: line, Err: &DuplicateIDError{ID: t.ID, FirstLine: first}}
		}
		seen[t.ID] = line
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, &FileError{File: name, Line: line + 1, Err: err}
	}
	if len(out) == 0 {
		return nil, &FileError{File: name, Err: ErrEmpty}
	}
	return out, nil
}

func parseTrnLine(s string) (Transcript, error) {
	if !strings.HasSuffix(s, ")") {
		return Transcript{}, errors.New("no utterance id: a trn line ends with (utt-id)")
	}
	open := strings.LastIndexByte(s, '(')
	if open < 0 {
		return Transcript{}, errors.New("no utterance id: a trn line ends with (utt-id)")
	}
	id := s[open+1 : len(s)-1]
	if strings.TrimSpace(id) == "" || strings.ContainsAny(id, "()") || strings.IndexFunc(id, pyIsSpace) >= 0 {
		return Transcript{}, fmt.Errorf("bad utterance id %q", id)
	}
	return Transcript{ID: id, Text: strings.TrimFunc(s[:open], pyIsSpace)}, nil
}

func parseJSONLine(s string) (Transcript, error) {
	var v struct {
		ID   *string `json:"id"`
		Text *string `json:"text"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&v); err != nil {
		return Transcript{}, fmt.Errorf("not a JSON object {id, text}: %v", err)
	}
	if dec.More() {
		return Transcript{}, errors.New("more than one JSON value on the line")
	}
	if v.ID == nil || *v.ID == "" {
		return Transcript{}, errors.New(`no "id"`)
	}
	if v.Text == nil {
		return Transcript{}, fmt.Errorf(`utterance %q has no "text"`, *v.ID)
	}
	if !utf8.ValidString(*v.ID) || !utf8.ValidString(*v.Text) {
		return Transcript{}, ErrBadUTF8
	}
	return Transcript{ID: *v.ID, Text: *v.Text}, nil
}

// PairUp matches hypotheses to references by id, in the references' order.
// Every id must be in both: otherwise a *MissingIDError names the file that
// lacks ids and lists them (references are checked first).
func PairUp(ref, hyp []Transcript, refName, hypName string) ([]Pair, error) {
	h := make(map[string]string, len(hyp))
	for _, t := range hyp {
		h[t.ID] = t.Text
	}
	r := make(map[string]bool, len(ref))
	pairs := make([]Pair, 0, len(ref))
	var missing []string
	for _, t := range ref {
		r[t.ID] = true
		text, ok := h[t.ID]
		if !ok {
			missing = append(missing, t.ID)
			continue
		}
		pairs = append(pairs, Pair{ID: t.ID, Ref: t.Text, Hyp: text})
	}
	if len(missing) > 0 {
		return nil, &MissingIDError{File: hypName, Other: refName, IDs: missing}
	}
	for _, t := range hyp {
		if !r[t.ID] {
			missing = append(missing, t.ID)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingIDError{File: refName, Other: hypName, IDs: missing}
	}
	return pairs, nil
}
