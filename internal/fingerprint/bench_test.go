package fingerprint

import (
	"io"
	"strings"
	"testing"
)

// A typical engine log line, and a long run of text without spaces.
var (
	benchLine = `INFO 11-29 18:00:01 [api_server.py:1024] args: Namespace(model='Qwen/Qwen3-ASR-1.7B', api_key=['` + secret + `'], max_num_seqs=256, port=8000)`
	benchLong = strings.Repeat("x", 64<<10)
)

func BenchmarkRedactLine(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		Redact(benchLine)
	}
}

func BenchmarkRedactLong(b *testing.B) {
	b.SetBytes(int64(len(benchLong)))
	for b.Loop() {
		Redact(benchLong)
	}
}

func BenchmarkLineRedactor(b *testing.B) {
	r := NewLineRedactor(io.Discard, stamp)
	line := []byte(benchLine + "\n")
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.Write(line)
	}
}
