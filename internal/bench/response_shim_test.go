package bench

import (
	"bufio"

	"github.com/benchseal/benchseal/internal/task"
)

// responseText and readSSE are the ASR task's decoders (internal/task),
// under the names this package's tests know.
func responseText(format, contentType string, body []byte) (text, note string, err error) {
	return task.ASR.Decode(map[string]string{"response_format": format}, contentType, body)
}

func readSSE(br *bufio.Reader, onText func()) (text, id string, err error) {
	return task.ASR.DecodeStream(br, onText)
}
