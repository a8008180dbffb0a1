package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/benchseal/benchseal/internal/task"
)

// StreamError is a stream that did not end as its engine ends a good one
// (task.StreamError).
type StreamError = task.StreamError

// RequestID is the X-Request-Id benchseal sends with one request, and
// records as its request_id: "bs-" + the first 16 hex digits of
// SHA-256(seed as 8 little-endian bytes, target name), then
// "-c<concurrency>-r<repeat>-s<seq>". seq counts the step's requests,
// warm-ups first, so the id is unique within a run (one line per target,
// level, repeat and seq), differs between runs of other seeds, carries no
// character a header or log could mangle whatever the target's name, and
// is re-derived from run.json and the record alone. vLLM makes it its
// request id (transcribe-<id>; entrypoints/openai/engine/serving.py
// _base_request_id @619e4b31, speech_to_text.py @024e0772), so its logs
// and events join the records.
func RequestID(seed uint64, target string, concurrency, repeat, seq int) string {
	return AttemptRequestID(seed, target, concurrency, repeat, seq, 1)
}

// AttemptRequestID is RequestID of a request of a step's attempt: a
// re-measured attempt (attempt > 1) appends "-a<attempt>", so no two
// attempts share an id.
func AttemptRequestID(seed uint64, target string, concurrency, repeat, seq, attempt int) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(target))
	sum := h.Sum(nil)
	if attempt > 1 {
		return fmt.Sprintf("bs-%x-c%d-r%d-s%d-a%d", sum[:8], concurrency, repeat, seq, attempt)
	}
	return fmt.Sprintf("bs-%x-c%d-r%d-s%d", sum[:8], concurrency, repeat, seq)
}
