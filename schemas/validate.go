package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var schemaFS embed.FS

// baseURL prefixes every schema's $id: https://benchseal.dev/schemas/<name>.schema.json.
const baseURL = "https://benchseal.dev/schemas/"

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// Names lists the embedded schemas by document name ("run", "record", ...).
func Names() []string {
	entries, _ := fs.Glob(schemaFS, "*.schema.json")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e, ".schema.json"))
	}
	sort.Strings(names)
	return names
}

// Schema returns the raw JSON Schema of the named document.
func Schema(name string) ([]byte, error) {
	b, err := schemaFS.ReadFile(name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("no schema named %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

func compileAll() {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	compiled = map[string]*jsonschema.Schema{}
	for _, name := range Names() {
		raw, _ := schemaFS.ReadFile(name + ".schema.json")
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
		if err := c.AddResource(baseURL+name+".schema.json", doc); err != nil {
			compileErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
	}
	for _, name := range Names() {
		s, err := c.Compile(baseURL + name + ".schema.json")
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", name, err)
			return
		}
		compiled[name] = s
	}
}

// ValidationError says which document failed its schema and why.
type ValidationError struct {
	Schema string // document name, "run", "record", ...
	Err    error  // the validator's detailed error
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("does not match schema %s: %v", e.Schema, e.Err)
}

func (e *ValidationError) Unwrap() error { return e.Err }

// Validate checks the JSON document doc against the named schema. A JSONL
// file is validated line by line by the caller (see ValidateLines).
func Validate(name string, doc []byte) error {
	compileOnce.Do(compileAll)
	if compileErr != nil {
		return compileErr
	}
	s, ok := compiled[name]
	if !ok {
		return fmt.Errorf("no schema named %q (have %s)", name, strings.Join(Names(), ", "))
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return &ValidationError{Schema: name, Err: fmt.Errorf("not JSON: %w", err)}
	}
	if err := s.Validate(v); err != nil {
		return &ValidationError{Schema: name, Err: err}
	}
	return nil
}

// LineError locates a JSONL line that failed validation.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ValidateLines validates every non-empty line of a JSONL document against
// the named schema and returns the first failure as a *LineError.
func ValidateLines(name string, jsonl []byte) error {
	for i, line := range bytes.Split(jsonl, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := Validate(name, line); err != nil {
			return &LineError{Line: i + 1, Err: err}
		}
	}
	return nil
}
