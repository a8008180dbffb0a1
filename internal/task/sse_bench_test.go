package task_test

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
)

// BenchmarkASRStreamDecode is ASR's stream decoding of a 20-chunk vLLM
// transcription stream: the per-request cost a streamed run adds on the
// client (what chat-audio's chunk hook must not make dearer).
func BenchmarkASRStreamDecode(b *testing.B) {
	var s bytes.Buffer
	for i := range 20 {
		fmt.Fprintf(&s, "data: {\"id\":\"transcribe-1\",\"object\":\"transcription.chunk\",\"choices\":[{\"delta\":{\"content\":\"word%d \"}}]}\n\n", i)
	}
	s.WriteString("data: {\"id\":\"transcribe-1\",\"object\":\"transcription.chunk\",\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	body := s.Bytes()
	r := bytes.NewReader(body)
	br := bufio.NewReader(r)
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(body)
		br.Reset(r)
		if _, _, err := task.ASR.DecodeStream(br, func() {}); err != nil {
			b.Fatal(err)
		}
	}
}
