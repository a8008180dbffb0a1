package peer

import (
	"math"
	"strconv"
	"strings"
)

// The peer writes its files with Python's json: json.dumps(record) per raw
// line (separators ", " and ": ", keys in insertion order) and
// json.dump(payload, indent=2) for the result. pyDump writes the same
// bytes for the values the fixtures use, so the fixtures are files the
// peer could have written.

type kv struct {
	k string
	v any
}

// obj is a JSON object whose keys keep their order, as a Python dict's do.
type obj []kv

func pyDump(v any, indent int) string {
	var b strings.Builder
	pyWrite(&b, v, indent, 0)
	return b.String()
}

func pyWrite(b *strings.Builder, v any, indent, depth int) {
	nl := func(d int) {
		if indent > 0 {
			b.WriteString("\n" + strings.Repeat(" ", indent*d))
		}
	}
	item, colon := ", ", ": "
	if indent > 0 {
		item = ","
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(pyRepr(x))
	case string:
		b.WriteString(strconv.Quote(x)) // ASCII fixtures: json.dumps quotes them alike
	case []float64:
		a := make([]any, len(x))
		for i := range x {
			a[i] = x[i]
		}
		pyWrite(b, a, indent, depth)
	case []int:
		a := make([]any, len(x))
		for i := range x {
			a[i] = x[i]
		}
		pyWrite(b, a, indent, depth)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(item)
			}
			nl(depth + 1)
			pyWrite(b, e, indent, depth+1)
		}
		nl(depth)
		b.WriteString("]")
	case obj:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, e := range x {
			if i > 0 {
				b.WriteString(item)
			}
			nl(depth + 1)
			b.WriteString(strconv.Quote(e.k) + colon)
			pyWrite(b, e.v, indent, depth+1)
		}
		nl(depth)
		b.WriteString("}")
	default:
		panic("pyDump: unsupported value")
	}
}

// pyRepr is Python's repr of a float: the shortest round-tripping digits,
// with ".0" on integral values and exponents below 1e-4 or from 1e16.
func pyRepr(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		panic("pyRepr: not finite")
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		m, e, _ := strings.Cut(s, "e")
		if e[0] == '+' {
			e = e[1:]
		}
		if len(e) == 1 || (e[0] == '-' && len(e) == 2) {
			e = e[:len(e)-1] + "0" + e[len(e)-1:]
		}
		if e[0] != '-' {
			e = "+" + e
		}
		return m + "e" + e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
