package task

import "github.com/benchseal/benchseal/schemas"

// Rule is a task's success rule: what makes a decoded answer a success.
// The runner applies it to every 200 answer, verify's check 7 applies it
// again to every record, so a record's ok and its scored output follow
// from its output alone.
type Rule interface {
	// SuccessRule is the rule's name, as run.json records it
	// (protocol.success_rule); replay and verify refuse a run whose
	// recorded rule is not its task's.
	SuccessRule() string
	// Score is the rule: the output as scored (a record's text_scored),
	// and the schemas.Err* class and message when the answer is no
	// success.
	Score(text string) (scored, class, msg string)
}

// Quality is a task's quality metric, the figure claims.json keeps per
// level and repeat ("wer").
type Quality interface {
	// Name is the task's name, as run.json's protocol.task records it.
	Name() string
	// Metric is the figure's name as reports and compare print it, under
	// run.json's scoring sc (ASR: "WER", or "CER" when sc counts
	// characters).
	Metric(sc schemas.Scoring) string
	// Quality computes the metric over one level and repeat's measured
	// records, with refs the reference text of each corpus entry that
	// has one (run.json's corpus text) and sc run.json's scoring. nil
	// means unknown (nothing scored), never 0.
	Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error)
}

// RoundTripper is a Quality whose figure another server measures after
// the sweep (tts: an ASR server transcribing each produced answer; run
// --asr-target): RoundTrip is the metric over what it heard of each
// measured record, by request id. Claims use it, with Spoken's
// references, where run.json names a round trip.
type RoundTripper interface {
	RoundTrip(heard map[string]schemas.Heard) Quality
	// Hearer is the task the round trip's server answers (tts: ASR, whose
	// request sends each produced answer and whose decoding reads what
	// it heard).
	Hearer() Task
}

// RoundTripNames are the registered tasks whose quality is a round
// trip's, sorted: the tasks run --asr-target takes.
func RoundTripNames() []string {
	var out []string
	for _, n := range Names() {
		if t, _ := Lookup(n); t != nil {
			if _, ok := t.(RoundTripper); ok {
				out = append(out, n)
			}
		}
	}
	return out
}
