package schemas

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestEverySchemaCompiles(t *testing.T) {
	names := Names()
	if len(names) < 3 {
		t.Fatalf("embedded schemas = %v, want at least run, record, claims", names)
	}
	for _, n := range names {
		if err := Validate(n, []byte(`{}`)); err == nil {
			t.Errorf("schema %s accepts an empty object", n)
		} else if !errors.As(err, new(*ValidationError)) {
			t.Errorf("schema %s: %v", n, err)
		}
	}
}

func validRun() Run {
	return Run{
		Schema:    RunSchema,
		Tool:      Tool{Name: "benchseal", Version: "devel", GoVersion: "go1.26.8", Modules: []Module{}},
		StartedAt: time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC),
		Seed:      1,
		Protocol: Protocol{Levels: []int{1}, Requests: []int{4}, Warmup: []int{1}, Repeats: 1, Perturb: true,
			TimeoutS: 60, SuccessRule: SuccessRule, TargetOrder: "alternate"},
		Scoring: Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []Target{{Name: "a", URL: "http://127.0.0.1:8000", Model: "m", RequestFields: map[string]string{}}},
		Corpus: []Clip{{ID: "c", File: "inputs/x.wav", SHA256: "0000000000000000000000000000000000000000000000000000000000000000",
			Frames: 16000, Channels: 1, SampleRate: 16000, Bits: 16, ValidBits: 16, Seconds: 1, Format: "pcm"}},
	}
}

func TestGoTypesMatchSchemas(t *testing.T) {
	run, _ := json.Marshal(validRun())
	if err := Validate("run", run); err != nil {
		t.Errorf("run: %v", err)
	}
	rec, _ := json.Marshal(Record{Target: "a", Concurrency: 1, Repeat: 1, Phase: PhaseMeasure, Clip: "c",
		InputSHA256: "0000000000000000000000000000000000000000000000000000000000000000"})
	if err := Validate("record", rec); err != nil {
		t.Errorf("record: %v", err)
	}
	wer := 0.1
	m := Metrics{Quality: &wer, Errors: map[string]int{}}
	cl, _ := json.Marshal(Claims{Schema: ClaimsSchema, Targets: []TargetClaims{{Target: "a",
		Levels: []LevelClaims{{Concurrency: 1, Repeats: []Metrics{m}, Median: m, Min: m, Max: m}}}}})
	if err := Validate("claims", cl); err != nil {
		t.Errorf("claims: %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	r := validRun()
	r.Protocol.Levels = nil
	b, _ := json.Marshal(r)
	if err := Validate("run", b); err == nil {
		t.Error("run without levels validated")
	}
	bad := []byte("{\"target\":\"a\"}\n")
	var le *LineError
	if err := ValidateLines("record", bad); !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("ValidateLines = %v, want a *LineError on line 1", err)
	}
	if err := Validate("nope", []byte(`{}`)); err == nil {
		t.Error("unknown schema name accepted")
	}
}
