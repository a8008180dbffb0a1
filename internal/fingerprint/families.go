package fingerprint

import (
	"bytes"
	"maps"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// Families is a set of /metrics families to read out of a scrape. Lines
// keeps only their lines, so that Prometheus's parser (ParseMetrics) reads
// a few hundred lines of a 10k-series answer rather than all of it:
// expfmt costs about 2 µs a series (internal/claims'
// BenchmarkParseAllSeries, 20 ms for 10k series), which the recorder pays
// at every step boundary and claims at every scrape it reads.
type Families struct {
	names    map[string]bool
	prefixes map[string]bool // the first familyPrefixLen bytes of every name
}

// familyPrefixLen is how much of a sample name is looked up before the
// name itself: most lines of a real answer fail there.
const familyPrefixLen = 5

// NewFamilies returns the set of names (as exposed, without _bucket,
// _sum or _count; a counter under both its names, with and without
// _total, when the engine exposes either). A name shorter than
// familyPrefixLen panics: the table it comes from is wrong.
func NewFamilies(names ...string) *Families {
	f := &Families{names: map[string]bool{}, prefixes: map[string]bool{}}
	for _, n := range names {
		if len(n) < familyPrefixLen {
			panic("fingerprint: metric family " + n + " shorter than familyPrefixLen")
		}
		f.names[n] = true
		f.prefixes[n[:familyPrefixLen]] = true
	}
	return f
}

// Union is f and g together.
func (f *Families) Union(g *Families) *Families {
	u := &Families{names: maps.Clone(f.names), prefixes: maps.Clone(f.prefixes)}
	maps.Copy(u.names, g.names)
	maps.Copy(u.prefixes, g.prefixes)
	return u
}

// Parse parses the families of f out of raw with ParseMetrics, after
// Lines. A broken line of another family is not read, so not an error.
func (f *Families) Parse(raw []byte) (map[string]*dto.MetricFamily, error) {
	return ParseMetrics(f.Lines(raw))
}

// Lines keeps the lines of raw that f's families are read from: each
// # HELP or # TYPE line of one of them (or of a quoted UTF-8 name, which
// only the parser reads), every sample line of the block it opens, up to
// the next # HELP or # TYPE line, and a sample line of one of them
// anywhere else (the parser gives a sample to the family of its name,
// wherever it stands). It drops other comments and the blocks of every other
// family, which the parser would have read and the caller thrown away; a
// line it keeps is parsed as it stands, so a broken line of f still
// fails. internal/claims' FuzzParseScrape holds it to parsing the whole
// answer.
func (f *Families) Lines(raw []byte) []byte {
	out := make([]byte, 0, 16<<10)
	in := false // inside a block of f
	// shadow are the names, looking like a sample of f, of families the
	// dropped # HELP and # TYPE lines made: the parser gives a later
	// sample of that name to them, so it is dropped too (never seen from
	// real engines; FuzzParseScrape found it).
	var shadow map[string]bool
	// block is the name of the dropped block the lines are in: a sample
	// line of exactly that name (most lines of a dropped block) is
	// dropped without a lookup.
	var block []byte
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i+1], raw[i+1:]
		} else {
			raw = nil
		}
		var name []byte
		if len(line) > 0 && line[0] == '#' {
			keep, ok := f.metaLine(line)
			if !ok {
				continue // a plain comment
			}
			block = nil
			if in = keep; !in {
				name = metaName(line)
				if !f.sample(name) {
					block = name
				}
			}
		} else {
			if !in && len(block) > 0 && len(line) > len(block) && bytes.HasPrefix(line, block) {
				if c := line[len(block)]; c == '{' || c == ' ' || c == '\t' {
					continue // the dropped block's own family, not one of f
				}
			}
			name = line[:nameEnd(line)]
		}
		meta := len(line) > 0 && line[0] == '#'
		switch {
		case len(shadow) > 0 && shadow[string(name)]:
		case !in && meta && f.sample(name):
			if shadow == nil {
				shadow = map[string]bool{}
			}
			shadow[string(name)] = true
		case in || f.sample(name):
			out = append(out, line...)
		}
	}
	return out
}

// sample says whether name is a sample name of a family of f (the
// family's own, or with _bucket, _sum or _count; a counter's _total name
// is in f itself, see counterNames).
func (f *Families) sample(name []byte) bool {
	if len(name) < familyPrefixLen || !f.prefixes[string(name[:familyPrefixLen])] {
		return false // most lines: no family of f starts so
	}
	if f.names[string(name)] {
		return true
	}
	for _, suffix := range [...]string{"_bucket", "_sum", "_count"} {
		if base, ok := bytes.CutSuffix(name, []byte(suffix)); ok && f.names[string(base)] {
			return true
		}
	}
	return false
}

func metaName(line []byte) []byte {
	rest := bytes.TrimLeft(line[1:], " \t")
	name := bytes.TrimLeft(rest[nameEnd(rest):], " \t")
	return name[:nameEnd(name)]
}

// metaLine reads a comment line as the parser does: ok when it is a
// # HELP or # TYPE line, keep when it names a family of f or a quoted
// name.
func (f *Families) metaLine(line []byte) (keep, ok bool) {
	rest := bytes.TrimLeft(line[1:], " \t")
	tok := rest[:nameEnd(rest)]
	if string(tok) != "HELP" && string(tok) != "TYPE" {
		return false, false
	}
	name := bytes.TrimLeft(rest[len(tok):], " \t")
	if len(name) > 0 && name[0] == '"' {
		return true, true
	}
	return f.names[string(name[:nameEnd(name)])], true
}

// nameEnd is where the metric name at the start of b ends: at "{", a
// blank or the line's end.
func nameEnd(b []byte) int {
	for i, c := range b {
		if c == '{' || c == ' ' || c == '\t' || c == '\n' {
			return i
		}
	}
	return len(b)
}

// counterNames are each counter of names under both the names an engine
// may expose it by: with _total, and without (prometheus_client's # TYPE
// line).
func counterNames(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n)
		if b, ok := strings.CutSuffix(n, "_total"); ok {
			out = append(out, b)
		}
	}
	return out
}
