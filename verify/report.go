package verify

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Status is the verdict of a check or of one finding. The order is the
// order of severity: a check takes the worst status of its findings.
type Status int

const (
	// Pass: the check ran and found nothing wrong.
	Pass Status = iota
	// Skip: the check does not apply to what was verified (checks 1-3 of
	// a run directory, which has no archive and no signature).
	Skip
	// Warn: nothing is proven false, but something weakens the evidence
	// (an unpinned key, audio left out, a run without perturbation, an
	// unfair comparison).
	Warn
	// Unchecked: the check applies but could not run, so nothing was found
	// false and nothing was shown to hold (a key-signed bundle verified
	// without its sealer's public key). The report is not OK: what the
	// check guards is not established.
	Unchecked
	// Fail: the evidence contradicts itself or its signature.
	Fail
)

var statusNames = [...]string{"PASS", "SKIP", "WARN", "UNCHECKED", "FAIL"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText writes the status as "PASS", "SKIP", "WARN", "UNCHECKED" or "FAIL".
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if string(b) == n {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("verify: unknown status %q", b)
}

// MaxFindings caps the findings a check keeps; the rest are only counted
// (Check.Omitted), so a bundle with a million bad records costs a
// counter, not a million strings.
const MaxFindings = 20

// Finding is one problem (or one notable fact) a check found.
type Finding struct {
	Status Status `json:"status"`
	// Kind classifies it (see Kind); a check sets it on every finding it
	// keeps.
	Kind Kind `json:"kind"`
	// Path is the file of the bundle or run directory it is about ("" when
	// it is about the whole), Line the 1-based line of a JSONL file (0
	// when none).
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Advice is the end of Reason that says how to observe more (", "
	// joined after "; "), "" when Reason has none: a report lists the
	// fact alone and gives the advice once, below its caveats.
	Advice string `json:"advice,omitempty"`
	// Err is the typed cause when there is one (*bundle.DigestError,
	// *VariantError, *ClaimError, *schemas.ValidationError, ...).
	Err error `json:"-"`
}

func (f Finding) String() string {
	var b strings.Builder
	if f.Path != "" {
		b.WriteString(f.Path)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(f.Reason)
	return b.String()
}

// Check is one item of the checklist.
type Check struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Summary says in one line what was checked and the verdict.
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
	// Omitted counts findings left out beyond MaxFindings.
	Omitted int `json:"omitted,omitempty"`
}

// add records a finding and raises the check's status to it.
func (c *Check) add(f Finding) {
	c.Status = max(c.Status, f.Status)
	if f.Kind == "" {
		f.Kind = kindOf(f, c.Name)
	}
	if len(c.Findings) >= MaxFindings {
		c.Omitted++
		return
	}
	c.Findings = append(c.Findings, f)
}

func (c *Check) failf(path string, err error, format string, args ...any) {
	c.add(Finding{Status: Fail, Path: path, Reason: fmt.Sprintf(format, args...), Err: err})
}

func (c *Check) warnf(path string, format string, args ...any) {
	c.add(Finding{Status: Warn, Path: path, Reason: fmt.Sprintf(format, args...)})
}

// warnKindf is warnf for a finding of a kind of its own.
func (c *Check) warnKindf(kind Kind, path string, format string, args ...any) {
	c.add(Finding{Status: Warn, Kind: kind, Path: path, Reason: fmt.Sprintf(format, args...)})
}

// Count is the number of findings of the given status, kept or omitted
// (omitted ones are counted as the check's status).
func (c *Check) count(s Status) int {
	n := 0
	for _, f := range c.Findings {
		if f.Status == s {
			n++
		}
	}
	if c.Status == s {
		n += c.Omitted
	}
	return n
}

// Report is the checklist of one bundle or run directory, every check in
// order, each with every problem found (none stops the others).
type Report struct {
	// Source is what was verified, as named by the caller; Kind is
	// "bundle" or "run directory".
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// Key is the fingerprint of the key the signature was checked with,
	// Pinned false when that key came from the bundle itself.
	Key    string  `json:"key,omitempty"`
	Pinned bool    `json:"pinned"`
	Checks []Check `json:"checks"`
	// Passed, Skipped, Warned, Unchecked and Failed count the checks by
	// status.
	Passed    int `json:"passed"`
	Skipped   int `json:"skipped"`
	Warned    int `json:"warned"`
	Unchecked int `json:"unchecked"`
	Failed    int `json:"failed"`
}

// OK reports whether no check failed and none was left unchecked: the
// exit status 0 of benchseal verify. An unchecked check is not a failure
// (nothing was found false), but a bundle whose signature could not be
// checked proves nothing about who sealed it or whether it was changed,
// so it does not verify either.
func (r *Report) OK() bool { return r.Failed == 0 && r.Unchecked == 0 }

// Check returns the check with the given ID (CheckArchive ... CheckServer).
func (r *Report) Check(id int) *Check {
	for i := range r.Checks {
		if r.Checks[i].ID == id {
			return &r.Checks[i]
		}
	}
	return nil
}

func (r *Report) tally() {
	r.Passed, r.Skipped, r.Warned, r.Unchecked, r.Failed = 0, 0, 0, 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			r.Passed++
		case Skip:
			r.Skipped++
		case Warn:
			r.Warned++
		case Unchecked:
			r.Unchecked++
		case Fail:
			r.Failed++
		}
	}
}

// MarshalJSON keeps findings an empty list rather than null, so readers
// of `benchseal verify --json` can iterate without a check.
func (c Check) MarshalJSON() ([]byte, error) {
	type plain Check
	if c.Findings == nil {
		c.Findings = []Finding{}
	}
	return json.Marshal(plain(c))
}
