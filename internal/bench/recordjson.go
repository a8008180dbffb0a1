package bench

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/benchseal/benchseal/schemas"
)

// appendRecord appends rec's records line to dst: exactly the bytes of
// json.NewEncoder with SetEscapeHTML(false) (the field order and names of
// schemas.Record's tags, omitempty, Go's float formatting, its string
// escapes, the final newline), without reflection or allocation. ok is
// false for a record encoding/json refuses too (a non-finite
// audio_seconds), which is never written.
// TestAppendRecordMatchesEncodingJSON holds it to encoding/json field by
// field; a field added to schemas.Record fails it until it is written here.
func appendRecord(dst []byte, rec *schemas.Record) (out []byte, ok bool) {
	if math.IsNaN(rec.Seconds) || math.IsInf(rec.Seconds, 0) {
		return dst, false
	}
	dst = strField(dst, `{"target":`, rec.Target)
	dst = intField(dst, `,"concurrency":`, rec.Concurrency)
	dst = intField(dst, `,"repeat":`, rec.Repeat)
	dst = strField(dst, `,"phase":`, rec.Phase)
	dst = intField(dst, `,"seq":`, rec.Seq)
	dst = intField(dst, `,"worker":`, rec.Worker)
	dst = strField(dst, `,"clip":`, rec.Clip)
	dst = intField(dst, `,"variant":`, rec.Variant)
	dst = intField(dst, `,"sample_index":`, rec.SampleIndex)
	dst = intField(dst, `,"byte_offset":`, rec.ByteOffset)
	dst = strField(dst, `,"input_sha256":`, rec.InputSHA256)
	dst = floatField(dst, `,"audio_seconds":`, rec.Seconds)
	dst = intField(dst, `,"start_ns":`, rec.StartNs)
	dst = intField(dst, `,"first_byte_ns":`, rec.FirstByteNs)
	dst = intField(dst, `,"end_ns":`, rec.EndNs)
	dst = intField(dst, `,"status":`, rec.Status)
	dst = boolField(dst, `,"ok":`, rec.OK)
	dst = strField(dst, `,"error_class":`, rec.ErrorClass)
	dst = strField(dst, `,"error":`, rec.Error)
	dst = strField(dst, `,"text":`, rec.Text)
	dst = strField(dst, `,"text_scored":`, rec.Scored)
	if rec.RequestID != "" {
		dst = strField(dst, `,"request_id":`, rec.RequestID)
	}
	if rec.ServerRequestID != "" {
		dst = strField(dst, `,"server_request_id":`, rec.ServerRequestID)
	}
	if rec.ResponseNote != "" {
		dst = strField(dst, `,"response_note":`, rec.ResponseNote)
	}
	if rec.PlannedNs != 0 {
		dst = intField(dst, `,"planned_ns":`, rec.PlannedNs)
	}
	if rec.Attempt != 0 {
		dst = intField(dst, `,"attempt":`, rec.Attempt)
	}
	return append(dst, "}\n"...), true
}

// strField, intField, floatField and boolField append a key (with its
// leading comma and colon) and its value.
func strField(dst []byte, key, v string) []byte { return appendJSONString(append(dst, key...), v) }

func intField[T int | int64](dst []byte, key string, v T) []byte {
	return strconv.AppendInt(append(dst, key...), int64(v), 10)
}

func floatField(dst []byte, key string, v float64) []byte {
	return appendJSONFloat(append(dst, key...), v)
}

func boolField(dst []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(dst, key...), v)
}

// appendJSONFloat is encoding/json's float64: the shortest decimal that
// reads back the same, in 'f' form but for magnitudes under 1e-6 or from
// 1e21 on, whose 'e' form drops a leading zero of a negative exponent
// (1e-07 is written 1e-7). f is finite.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const jsonHex = "0123456789abcdef"

// appendJSONString is encoding/json's string without HTML escaping: '"'
// and '\\' escaped, control bytes as \b \f \n \r \t or \u00XX, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029, everything
// else as it is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[b>>4], jsonHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
