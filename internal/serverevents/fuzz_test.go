package serverevents_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/benchseal/benchseal/internal/serverevents"
)

// FuzzDecodeOTLP: any bytes decode or are refused, and what decodes gives
// spans whose benchseal id, when found, is inside the server's id.
func FuzzDecodeOTLP(f *testing.F) {
	good, err := proto.Marshal(vllmExport("transcribe-"+prefix+"0", "transcribe-"+prefix+"1_0"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, good[:len(good)/2], nil, []byte("{}")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := serverevents.DecodeOTLP(b)
		if err != nil {
			return
		}
		for _, s := range spans {
			if s.ServerID == "" || !strings.Contains(s.ServerID, s.BenchID) {
				t.Fatalf("span %+v", s)
			}
		}
	})
}

// FuzzParseEvents: any file parses or is refused, and the stage lines of
// what parses never carry a negative interval.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`{"request_id":"r","stage":"asr","event_name":"scheduler_queue_enter","timestamp_ns":1}` + "\n" +
		`{"request_id":"r","stage":"asr","event_name":"scheduler_prefill_start","timestamp_ns":5}` + "\n"))
	f.Add([]byte(`{"request_id":"r-chunk-1","stage":"coordinator","event_name":"request_admission","timestamp_ns":9}`))
	f.Add([]byte("\n\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := serverevents.ParseEvents(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, l := range serverevents.EventStages(evs) {
			for _, v := range []*float64{l.QueueS, l.PrefillS, l.DecodeS, l.BuildS, l.E2ES} {
				if v != nil && *v < 0 {
					t.Fatalf("negative interval in %+v", l)
				}
			}
		}
	})
}
