package task

import (
	"github.com/benchseal/benchseal/schemas"
)

// The roles a task may play beyond Task, each a small interface the core
// asks for by value, never by the task's name: its Words (what the report
// and the CLI say of its input, output and work), its Figures (a
// reporter in vegeta's style: an accumulator per level and repeat whose
// Close names the task's own figures, with units), and its Checks (record
// checks of its own that verify runs under its checklist's rows). A task
// without a role has none of it: WordsOf gives ASR's words (the first
// task's, which the report was written in), FiguresOf no figures,
// ChecksOf no checks.

// Phrase is one wording in every language the report has, keyed by the
// language ("en", "zh"); "en" is the source and the fallback.
type Phrase map[string]string

// In is the phrase in lang, English where lang has none.
func (p Phrase) In(lang string) string {
	if s, ok := p[lang]; ok && s != "" {
		return s
	}
	return p["en"]
}

// Words are the nouns and verbs the report composes its sentences from
// where tasks differ. Each is a Phrase in every language the report has
// (internal/report's TestTaskWords holds every registered task to it).
type Words struct {
	// Title is the report's title ("Speech-to-text benchmark").
	Title Phrase
	// Input is what one request sends that is perturbed, singular and
	// plural ("clip", "reference clip"); Item is what a corpus entry is
	// ("a clip", "an item": "every request of an item"); Fresh what every
	// request sent that no server had seen ("audio", "reference clip").
	Input, Inputs, Item, Fresh Phrase
	// Output is what a record keeps of an answer ("transcript", "the
	// produced audio's facts", "answer"), as the evidence says it is
	// sealed.
	Output Phrase
	// Done is the work as a participle of the audio RTFx counts
	// ("transcribed", "produced", "answered").
	Done Phrase
	// Work is the work on new input, as a gerund phrase ("transcribing
	// new audio"); Cached what a cache would repeat ("identical audio");
	// Noun the work as a noun ("transcription").
	Work, Cached, Noun Phrase
	// RTFxHeading is the heading of the RTFx section ("Real-time
	// factor").
	RTFxHeading Phrase
	// Success is the sentence saying what a success is, after "; "
	// ("success is HTTP 200 with non-empty text. ").
	Success Phrase
	// NoQuality is said where no quality figure was computed (nil: the
	// report says the corpus has no references).
	NoQuality Phrase
	// RTFxChart and RTFxAxis are the RTFx chart's title and axis (nil:
	// the report's own, "RTFx: seconds of audio per second").
	RTFxChart, RTFxAxis Phrase
	// Unshown is what a bundle of the task cannot show beyond what every
	// bundle cannot, UnshownHeard the same with a round trip (nil: nothing
	// more).
	Unshown, UnshownHeard Phrase
	// Unperturbed is the caveat's label and sentence for what a perturbed
	// run still sent as it is (nil: nothing).
	UnperturbedLabel, Unperturbed Phrase
	// Texts says the corpus' items are texts to speak, each with an
	// optional reference clip: the report counts texts and characters.
	Texts bool
}

// Worder is a task that names its own words.
type Worder interface{ Words() Words }

// WordsOf is t's words: its own, or ASR's for a task that names none,
// less the wording of ASR's success rule (the report then names the
// task's rule by its name).
func WordsOf(t Task) Words {
	if w, ok := t.(Worder); ok {
		return w.Words()
	}
	w := asrWords
	w.Success = nil
	return w
}

// Figure is one of a task's figures for a level and repeat: its name
// (claims.json's key beside the core's, e.g. "rtf_p50"), its unit ("s",
// "x", "s/char", "tokens/s") and its value, nil when not observed.
type Figure struct {
	Name, Unit string
	Value      *float64
}

// FigureSpec names a figure the report draws: Label is its column
// (without unit), Unit how the value is given ("s" is shown in ms).
type FigureSpec struct {
	Name, Unit string
	Label      Phrase
}

// Accumulator is fed a level and repeat's records, one at a time, in
// record order; Close computes the figures once, one per spec.
type Accumulator interface {
	Add(r *schemas.Record)
	Close() []Figure
}

// FigureChart is the chart of a task's figure: P50 (solid) and P99
// (dashed), two of its Figures' names, vs concurrency.
type FigureChart struct {
	Title, Axis Phrase
	P50, P99    string
	// Unseen is the caveat's label and sentence (one %s: the targets)
	// for targets with successes whose P50 was never observed, and
	// UnseenCaption what the table's caption adds then (nil: nothing).
	UnseenLabel, Unseen, UnseenCaption Phrase
}

// Figurer is a task with figures of its own.
type Figurer interface {
	// Figures are the figures Accumulate's Close returns, in order.
	Figures() []FigureSpec
	// Accumulate is a new accumulator for one level and repeat of run.
	Accumulate(run schemas.Run) Accumulator
	// Chart is the chart of its figures, nil for none.
	Chart() *FigureChart
	// Section is the heading of the report's section of its figures;
	// Caption its table's caption, which the report prefixes with the
	// medians' count.
	Section() Phrase
	Caption() Phrase
}

// FiguresOf is t's Figurer, nil when it has none.
func FiguresOf(t Task) Figurer {
	f, _ := t.(Figurer)
	return f
}

// RecordAt is one record and where it is in the bundle, for a Checker.
type RecordAt struct {
	File string
	Line int
	*schemas.Record
}

// Problem is what a task's check found wrong in one record.
type Problem struct {
	File   string
	Line   int
	Reason string
}

// Checker is a task with record checks of its own, which verify runs
// under check 5 (variants) over every record, with the run they belong to.
type Checker interface {
	CheckRecords(run schemas.Run, recs []RecordAt) []Problem
}

// ChecksOf is t's Checker, nil when it has none.
func ChecksOf(t Task) Checker {
	c, _ := t.(Checker)
	return c
}

// ServerCounter is a task whose output the server counts in a histogram
// of its own (tts: vLLM-Omni's seconds of audio produced): verify's check
// 9 holds the records' sum of Counted to the histogram's growth.
type ServerCounter interface {
	// ServerFamily is the histogram's family name.
	ServerFamily() string
	// Counted is what the server counted of one record's output, false
	// when it counts nothing of it (undecodable).
	Counted(r *schemas.Record) (float64, bool)
}

// Formatter is a task whose answers come in the response formats it
// names (ASR: ResponseFormats), which run --response-format must be one
// of.
type Formatter interface{ ResponseFormats() []string }

// Rescorer is a task whose records benchseal score rescores (ASR: its
// transcripts, under another normalizer).
type Rescorer interface{ Rescores() bool }

// Rescores says t's records are rescored by benchseal score.
func Rescores(t Task) bool {
	r, ok := t.(Rescorer)
	return ok && r.Rescores()
}

// Statuser is a task whose successes answer another HTTP status than 200
// (realtime: the WebSocket handshake's 101 Switching Protocols).
type Statuser interface{ SuccessStatus() int }

// SuccessStatus is the HTTP status of t's successes: its own, else 200.
func SuccessStatus(t any) int {
	if s, ok := t.(Statuser); ok {
		return s.SuccessStatus()
	}
	return 200
}

// ConnectionCounter is a task whose requests are connections the server
// counts (realtime: vLLM's vllm:websocket_connections_total, at every
// accepted WebSocket): verify's check 9 holds a step's sessions the
// server opened (Opened) to the counter's growth over the step.
type ConnectionCounter interface {
	ConnectionFamily() string
	Opened(r *schemas.Record) bool
}
