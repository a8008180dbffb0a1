package claims

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/benchseal/benchseal/schemas"
)

// decodeCanonical decodes a records line written in the runner's canonical
// form (internal/bench's appendRecord: schemas.Record's keys in their tag
// order, no whitespace, the optional keys last and in order) without
// reflection. It accepts nothing else: any other key, order, spacing,
// number form or string escape it does not know makes it return false,
// and the caller decodes the line with encoding/json instead. What it
// accepts it decodes exactly as json.Unmarshal into a zero Record would
// (FuzzDecodeCanonical holds the two equal on every line it accepts), so
// a record reads the same whichever path it took; only the speed differs
// (encoding/json's reflection costs about 8 times as much a record,
// BenchmarkReadRecords).
//
// No JSON library serves here: the decoders faster than encoding/json
// differ from it on edge cases (case-insensitive keys, duplicate keys,
// invalid UTF-8), and a verifier must read a doctored file exactly as
// encoding/json does. This reads only the form benchseal writes and hands
// everything else to encoding/json.
//
// in, when not nil, keeps one copy of the strings records repeat (target,
// phase, clip, error class, response note), so a large run's records do
// not hold a million copies of the same few names.
func decodeCanonical(line []byte, rec *schemas.Record, in *interner) bool {
	d := canonical{b: line, ok: true, in: in}
	d.name(`{"target":`, &rec.Target)
	d.int(`,"concurrency":`, &rec.Concurrency)
	d.int(`,"repeat":`, &rec.Repeat)
	d.name(`,"phase":`, &rec.Phase)
	d.int(`,"seq":`, &rec.Seq)
	d.int(`,"worker":`, &rec.Worker)
	d.name(`,"clip":`, &rec.Clip)
	d.int64(`,"variant":`, &rec.Variant)
	d.int64(`,"sample_index":`, &rec.SampleIndex)
	d.int64(`,"byte_offset":`, &rec.ByteOffset)
	d.str(`,"input_sha256":`, &rec.InputSHA256)
	d.float(`,"audio_seconds":`, &rec.Seconds)
	d.int64(`,"start_ns":`, &rec.StartNs)
	d.int64(`,"first_byte_ns":`, &rec.FirstByteNs)
	d.int64(`,"end_ns":`, &rec.EndNs)
	d.int(`,"status":`, &rec.Status)
	d.bool(`,"ok":`, &rec.OK)
	d.name(`,"error_class":`, &rec.ErrorClass)
	d.str(`,"error":`, &rec.Error)
	d.str(`,"text":`, &rec.Text)
	d.str(`,"text_scored":`, &rec.Scored)
	// The optional keys, each only where the writer puts it.
	d.optStr(`,"request_id":`, &rec.RequestID)
	d.optStr(`,"server_request_id":`, &rec.ServerRequestID)
	if d.next(`,"response_note":`) {
		d.name(`,"response_note":`, &rec.ResponseNote)
	}
	d.optInt64(`,"planned_ns":`, &rec.PlannedNs)
	d.optInt(`,"attempt":`, &rec.Attempt)
	return d.ok && len(d.b) == 1 && d.b[0] == '}'
}

// canonical is the rest of a line being decoded; ok turns false at the
// first byte that is not the canonical form, and every later step is then
// a no-op.
type canonical struct {
	b  []byte
	ok bool
	in *interner
}

// interner hands out one string per distinct value.
type interner map[string]string

func (in *interner) intern(b []byte) string {
	if s, ok := (*in)[string(b)]; ok { // no allocation for the lookup
		return s
	}
	if *in == nil {
		*in = interner{}
	}
	s := string(b)
	(*in)[s] = s
	return s
}

// key consumes key (its leading comma and colon included) or fails.
func (d *canonical) key(key string) bool {
	if !d.ok {
		return false
	}
	if len(d.b) < len(key) || string(d.b[:len(key)]) != key {
		d.ok = false
		return false
	}
	d.b = d.b[len(key):]
	return true
}

func (d *canonical) str(key string, v *string) {
	if d.key(key) {
		*v, d.ok = d.string()
	}
}

// name is str for a value records repeat, interned.
func (d *canonical) name(key string, v *string) {
	if !d.key(key) {
		return
	}
	if d.in == nil {
		*v, d.ok = d.string()
		return
	}
	b := d.b
	if len(b) > 0 && b[0] == '"' {
		if i := bytes.IndexByte(b[1:], '"'); i >= 0 && bytes.IndexByte(b[1:1+i], '\\') < 0 && printable(b[1:1+i]) {
			*v, d.b = d.in.intern(b[1:1+i]), b[i+2:]
			return
		}
	}
	*v, d.ok = d.string()
}

// printable says b holds no control byte and is valid UTF-8: a string
// that needs no decoding.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

func (d *canonical) int(key string, v *int) {
	if d.key(key) {
		var n int64
		n, d.ok = d.integer()
		*v = int(n)
	}
}

func (d *canonical) int64(key string, v *int64) {
	if d.key(key) {
		*v, d.ok = d.integer()
	}
}

func (d *canonical) float(key string, v *float64) {
	if !d.key(key) {
		return
	}
	n := numberLen(d.b)
	if n == 0 {
		d.ok = false
		return
	}
	f, err := strconv.ParseFloat(string(d.b[:n]), 64)
	if err != nil {
		d.ok = false
		return
	}
	*v, d.b = f, d.b[n:]
}

func (d *canonical) bool(key string, v *bool) {
	if !d.key(key) {
		return
	}
	switch {
	case bytes.HasPrefix(d.b, []byte("true")):
		*v, d.b = true, d.b[4:]
	case bytes.HasPrefix(d.b, []byte("false")):
		*v, d.b = false, d.b[5:]
	default:
		d.ok = false
	}
}

// optStr, optInt64 and optInt decode an optional key when the line has it
// next; absent, the field keeps its zero value, as omitempty wrote it.
func (d *canonical) optStr(key string, v *string) {
	if d.next(key) {
		d.str(key, v)
	}
}

func (d *canonical) optInt64(key string, v *int64) {
	if d.next(key) {
		d.int64(key, v)
	}
}

func (d *canonical) optInt(key string, v *int) {
	if d.next(key) {
		d.int(key, v)
	}
}

func (d *canonical) next(key string) bool { return d.ok && bytes.HasPrefix(d.b, []byte(key)) }

// string decodes a JSON string of printable ASCII, valid UTF-8 and the
// two-character escapes; a \u escape (or anything else) fails, and the
// line goes to encoding/json.
func (d *canonical) string() (string, bool) {
	b := d.b
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	b = b[1:]
	// The common case: no escape before the closing quote.
	i := 0
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' {
		s := b[:i]
		if !utf8.Valid(s) {
			return "", false
		}
		d.b = b[i+1:]
		return string(s), true
	}
	out := make([]byte, 0, i+16)
	out = append(out, b[:i]...)
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return "", false
			}
			d.b = b[i+1:]
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i == len(b) {
			return "", false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			return "", false
		}
	}
	return "", false
}

// integer decodes a JSON integer (-?(0|[1-9][0-9]*)) that fits an int64.
func (d *canonical) integer() (int64, bool) {
	b := d.b
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	nd := digits(b[i:])
	i += nd
	if nd == 0 || (nd > 1 && b[start] == '0') {
		return 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, false // a number, but not an integer: encoding/json refuses it for an int
	}
	n, err := strconv.ParseInt(string(b[:i]), 10, 64)
	if err != nil {
		return 0, false
	}
	d.b = b[i:]
	return n, true
}

// numberLen is the length of the JSON number b starts with, 0 when it
// starts with none (strconv.ParseFloat alone would also take "Inf", hex
// and underscores).
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i += digits(b[i:])
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		n := digits(b[i+1:])
		if n == 0 {
			return 0
		}
		i += 1 + n
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		n := digits(b[i:])
		if n == 0 {
			return 0
		}
		i += n
	}
	return i
}

// digits is the length of the run of ASCII digits b starts with.
func digits(b []byte) int {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
