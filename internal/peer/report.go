package peer

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Status is the outcome of checking one published figure.
type Status int

const (
	// Held: the figure follows from the raw data by the peer's own
	// definition.
	Held Status = iota
	// NotObserved: the raw data the figure rests on is not there (a raw
	// file missing, a field the peer does not save); nothing is proven
	// either way.
	NotObserved
	// Broken: the figure does not follow from the raw data.
	Broken
)

var statusNames = [...]string{"HELD", "NOT OBSERVED", "BROKEN"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText writes "HELD", "NOT OBSERVED" or "BROKEN".
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Figure is one published number and what its raw data gives.
type Figure struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Published and Recomputed are the numbers compared, as JSON values
	// (null when the peer published null or nothing could be computed).
	Published  any    `json:"published"`
	Recomputed any    `json:"recomputed"`
	Reason     string `json:"reason,omitempty"`
}

// Group is the figures of one part of the published result: one
// concurrency level and repeat, one level over its repeats, the whole file.
type Group struct {
	Scope   string   `json:"scope"`
	Source  string   `json:"source,omitempty"` // the raw file it was checked against
	Status  Status   `json:"status"`           // the worst of its figures
	Figures []Figure `json:"figures"`
}

// Report is what an import found.
type Report struct {
	Format      string  `json:"format"` // "seedtts" or "vllm-bench"
	Source      string  `json:"source"`
	Definitions string  `json:"definitions"` // the peer's files and commits reproduced
	Groups      []Group `json:"groups"`
	// Unverifiable says what the format cannot prove whatever the data:
	// the peer does not record it.
	Unverifiable []string `json:"unverifiable"`
	Held         int      `json:"held"`
	NotObserved  int      `json:"not_observed"`
	Broken       int      `json:"broken"`
}

// OK reports whether no figure was found broken.
func (r *Report) OK() bool { return r.Broken == 0 }

func (r *Report) add(g Group) {
	g.Status = Held
	for _, f := range g.Figures {
		g.Status = max(g.Status, f.Status)
		switch f.Status {
		case Held:
			r.Held++
		case NotObserved:
			r.NotObserved++
		default:
			r.Broken++
		}
	}
	r.Groups = append(r.Groups, g)
}

const notFollow = "does not follow from the raw data"

// group collects the figures of one scope.
type group struct{ g Group }

func newGroup(scope, source string) *group {
	return &group{Group{Scope: scope, Source: source, Figures: []Figure{}}}
}

func (g *group) notObserved(name, reason string, published any) {
	g.g.Figures = append(g.g.Figures, Figure{Name: name, Status: NotObserved, Published: published, Reason: reason})
}

func (g *group) broken(name, reason string, published, recomputed any) {
	g.g.Figures = append(g.g.Figures, Figure{Name: name, Status: Broken, Published: published, Recomputed: recomputed, Reason: reason})
}

func (g *group) held(name string, published, recomputed any) {
	g.g.Figures = append(g.g.Figures, Figure{Name: name, Status: Held, Published: published, Recomputed: recomputed})
}

// num compares a published number (nil: published null or absent) with
// its recomputation (nil: nothing to compute from), to digits decimals
// when the peer rounds it (digits < 0: unrounded).
func (g *group) num(name string, published, recomputed *float64, digits int) {
	switch {
	case published == nil && recomputed == nil:
		g.held(name, nil, nil)
	case published == nil:
		g.broken(name, "published null, but the raw data gives a value", nil, *recomputed)
	case recomputed == nil:
		g.broken(name, "published a value, but the raw data gives none", *published, nil)
	case sameNumber(*published, *recomputed, digits):
		g.held(name, *published, roundTo(*recomputed, digits))
	default:
		g.broken(name, notFollow, *published, roundTo(*recomputed, digits))
	}
}

// count compares a published count with its recomputation. A count the
// peer did not publish (absent or null: an older version of the tool
// that never wrote it, e.g. vLLM's max_concurrent_requests) is NOT
// OBSERVED: there is no figure to be wrong.
func (g *group) count(name string, published *float64, recomputed int) {
	r := float64(recomputed)
	switch {
	case published == nil:
		g.notObserved(name, fmt.Sprintf("not published by the tool (its raw data gives %d)", recomputed), nil)
	case *published == r:
		g.held(name, int(r), recomputed)
	default:
		g.broken(name, notFollow, *published, recomputed)
	}
}

// sameNumber tells whether a published figure equals its recomputation:
// rounded figures as Python's round(x, digits) gives them, unrounded ones
// to within float summation order (numpy sums pairwise, Python's
// statistics.mean exactly; the raw data holds the same doubles).
func sameNumber(pub, re float64, digits int) bool {
	if digits >= 0 {
		if pub == roundTo(re, digits) {
			return true
		}
		// A recomputation an ulp away from a rounding boundary: the
		// published value must still be one the rounding can give.
		return pub == roundTo(pub, digits) && math.Abs(pub-re) <= 0.5*math.Pow(10, -float64(digits))*(1+1e-9)
	}
	return math.Abs(pub-re) <= 1e-9*math.Max(math.Abs(pub), math.Abs(re))+1e-12
}

// roundTo is Python's round(x, digits) for digits >= 0: the double
// nearest the correctly rounded decimal (ties to even on the exact binary
// value), which is what strconv's fixed formatting gives.
func roundTo(x float64, digits int) float64 {
	if digits < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// number reads a JSON number; nil for null, absent or not a number.
func number(m map[string]json.RawMessage, key string) *float64 {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	var f *float64
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return f
}

func ptr(f float64) *float64 { return &f }
