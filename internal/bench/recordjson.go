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
	dst = append(dst, `{"target":`...)
	dst = appendJSONString(dst, rec.Target)
	dst = append(dst, `,"concurrency":`...)
	dst = strconv.AppendInt(dst, int64(rec.Concurrency), 10)
	dst = append(dst, `,"repeat":`...)
	dst = strconv.AppendInt(dst, int64(rec.Repeat), 10)
	dst = append(dst, `,"phase":`...)
	dst = appendJSONString(dst, rec.Phase)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, int64(rec.Seq), 10)
	dst = append(dst, `,"worker":`...)
	dst = strconv.AppendInt(dst, int64(rec.Worker), 10)
	dst = append(dst, `,"clip":`...)
	dst = appendJSONString(dst, rec.Clip)
	dst = append(dst, `,"variant":`...)
	dst = strconv.AppendInt(dst, rec.Variant, 10)
	dst = append(dst, `,"sample_index":`...)
	dst = strconv.AppendInt(dst, rec.SampleIndex, 10)
	dst = append(dst, `,"byte_offset":`...)
	dst = strconv.AppendInt(dst, rec.ByteOffset, 10)
	dst = append(dst, `,"input_sha256":`...)
	dst = appendJSONString(dst, rec.InputSHA256)
	dst = append(dst, `,"audio_seconds":`...)
	dst = appendJSONFloat(dst, rec.Seconds)
	dst = append(dst, `,"start_ns":`...)
	dst = strconv.AppendInt(dst, rec.StartNs, 10)
	dst = append(dst, `,"first_byte_ns":`...)
	dst = strconv.AppendInt(dst, rec.FirstByteNs, 10)
	dst = append(dst, `,"end_ns":`...)
	dst = strconv.AppendInt(dst, rec.EndNs, 10)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(rec.Status), 10)
	dst = append(dst, `,"ok":`...)
	dst = strconv.AppendBool(dst, rec.OK)
	dst = append(dst, `,"error_class":`...)
	dst = appendJSONString(dst, rec.ErrorClass)
	dst = append(dst, `,"error":`...)
	dst = appendJSONString(dst, rec.Error)
	dst = append(dst, `,"text":`...)
	dst = appendJSONString(dst, rec.Text)
	dst = append(dst, `,"text_scored":`...)
	dst = appendJSONString(dst, rec.Scored)
	if rec.RequestID != "" {
		dst = append(dst, `,"request_id":`...)
		dst = appendJSONString(dst, rec.RequestID)
	}
	if rec.ServerRequestID != "" {
		dst = append(dst, `,"server_request_id":`...)
		dst = appendJSONString(dst, rec.ServerRequestID)
	}
	if rec.ResponseNote != "" {
		dst = append(dst, `,"response_note":`...)
		dst = appendJSONString(dst, rec.ResponseNote)
	}
	if rec.PlannedNs != 0 {
		dst = append(dst, `,"planned_ns":`...)
		dst = strconv.AppendInt(dst, rec.PlannedNs, 10)
	}
	if rec.Attempt != 0 {
		dst = append(dst, `,"attempt":`...)
		dst = strconv.AppendInt(dst, int64(rec.Attempt), 10)
	}
	return append(dst, "}\n"...), true
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
