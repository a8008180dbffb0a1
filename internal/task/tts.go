package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// SpeechPath is the speech endpoint both engines serve
// (vllm-project/vllm-omni vllm_omni/entrypoints/openai/serving_speech.py@d6240742,
// sgl-project/sglang-omni sglang_omni/serve/speech_service.py@3f4286eb).
const SpeechPath = "/v1/audio/speech"

// TTS is the text-to-speech task: POST /v1/audio/speech with a JSON body
// {"model", "input": the item's text, the target's fields, "ref_text",
// "ref_audio": "data:audio/wav;base64,<the reference clip>"}. The
// reference clip is the input whose variants defeat the engines'
// reference caches: every request sends its own 1-LSB variant of it, as
// base64 (WAVBase64). The answer is audio, kept in the record as its
// facts (Audio: format, rate and where it came from, duration, RMS,
// longest silence, SHA-256), scored by TTSSuccessRule; RTF counts the
// seconds produced.
//
// What the variant does not defeat: the text is sent as it is, so a
// prefix cache keyed by the text's tokens could still reuse them
// (vLLM-Omni's cache_salt hashes the input with ref_audio, so there it
// cannot; its deploy YAML turns prefix caching off:
// vllm-project/vllm-omni deploy/qwen3_tts.yaml@d6240742). An item
// without a reference clip (a named voice, CustomVoice) has nothing to
// perturb: its request is the JSON without ref_audio, sent unchanged
// every time (Item.NoInput; the runner records sample_index -1 and an
// empty input_sha256), and run.json's corpus entry says so
// (schemas.PerturbNoReference), never calling its caches defeated.
var TTS Task = tts{}

func init() { Register(TTS) }

type tts struct{}

func (tts) Name() string        { return "tts" }
func (tts) Path() string        { return SpeechPath }
func (tts) SuccessRule() string { return TTSSuccessRule }

// Score is TTSSuccessRule on a record's text (the answer's Audio facts):
// undecodable, too_short (< MinSeconds) or silent (RMS < SilenceDBFS) are
// failures.
func (tts) Score(text string) (string, string, string) { return scoreAudio(text) }

// Decode measures a whole 200 answer's audio (decodeAudio).
func (tts) Decode(_ map[string]string, contentType string, body []byte) (string, string, error) {
	return decodeAudio(contentType, body).String(), "", nil
}

// RecordSeconds is the produced audio's seconds (the output's facts), 0
// when there is none: RTF divides latency by what was produced.
func (tts) RecordSeconds(_ float64, output string) float64 {
	a, err := ParseAudio(output)
	if err != nil {
		return 0
	}
	return round6(a.Seconds)
}

// Seconds is the reference clip's seconds (run.json's corpus entry).
func (tts) Seconds(frames int64, rate int) float64 { return float64(frames) / float64(rate) }

// Positions is the reference clip's samples.
func (tts) Positions(c schemas.Clip) int64 { return c.Frames * int64(c.Channels) }

// Input is the reference clip sent as base64 (WAVBase64).
func (tts) Input(name string, b []byte) (Input, error) { return WAVBase64(name, b) }

// The reference clip's bounds: vLLM-Omni answers 400 "Reference audio
// must be between 1 and 30 seconds" outside them
// (vllm-project/vllm-omni vllm_omni/entrypoints/openai/serving_speech.py
// _resolve_ref_audio@d6240742), so LoadCorpus refuses such a clip before
// measuring rather than measuring a run of 400s.
const (
	RefMinSeconds = 1.0
	RefMaxSeconds = 30.0
)

// LoadCorpus reads a text corpus (LoadTextCorpus) and opens each item's
// reference clip: a reference that is not a WAV or lasts less than
// RefMinSeconds or more than RefMaxSeconds is refused, naming its line
// and the clip. An item without ref_audio is a named-voice request
// (CustomVoice): a Clip with no WAV (NoInput), its Source the corpus
// line; one with a ref_text but no ref_audio is refused (both engines
// take ref_text for a voice-clone request, which needs the clip). An
// item with neither voice nor ref_audio is refused when the run's
// envelopes are built, unless the target sets a voice (--form voice=).
func (tts) LoadCorpus(path string) ([]Clip, error) {
	items, err := LoadTextCorpus(path)
	if err != nil {
		return nil, err
	}
	col := collect{corpus: path}
	var clips []Clip
	for _, it := range items {
		if it.RefAudio == "" {
			if it.RefText != "" {
				// vLLM-Omni makes ref_text a Base (voice-clone) request,
				// which needs ref_audio; SGLang-Omni's CustomVoice refuses
				// a ref_text.
				col.add(&CorpusError{File: path, Line: it.Line, Err: errors.New("ref_text without ref_audio: a reference transcript makes a voice-clone request, which needs its reference clip; drop ref_text for a named voice")})
				continue
			}
			clips = append(clips, Clip{ID: it.ID, Source: fmt.Sprintf("%s:%d", path, it.Line), Speak: it.Text, Language: it.Language, Voice: it.Voice})
			continue
		}
		c, err := readClip(it.RefAudio, it.ID)
		if err != nil {
			col.add(&CorpusError{File: path, Line: it.Line, Err: err})
			continue
		}
		if s := c.WAV.Seconds(); s < RefMinSeconds || s > RefMaxSeconds {
			col.add(&CorpusError{File: path, Line: it.Line, Err: fmt.Errorf("reference clip %s is %.2f s: vLLM-Omni refuses a reference outside %g-%g s", it.RefAudio, s, RefMinSeconds, RefMaxSeconds)})
			continue
		}
		c.Text, c.Speak, c.Language, c.Voice = it.RefText, it.Text, it.Language, it.Voice
		clips = append(clips, c)
	}
	if err := col.err(); err != nil {
		return nil, err
	}
	return clips, nil
}

// TextItem is one utterance of a text corpus.
type TextItem struct {
	ID       string `json:"id"`
	Text     string `json:"text"` // the text to speak
	Language string `json:"language,omitempty"`
	Voice    string `json:"voice,omitempty"`
	RefAudio string `json:"ref_audio,omitempty"` // a WAV path, resolved against the corpus file
	RefText  string `json:"ref_text,omitempty"`
	Line     int    `json:"-"`
}

// LoadTextCorpus reads a text corpus: JSONL (*.jsonl: {id, text,
// language?, voice?, ref_audio? (a WAV path relative to the file),
// ref_text?} a line), a SeedTTS meta.lst (*.lst: id|prompt text|prompt
// wav|target text: the target text is spoken, the prompt wav and text
// are the reference), or a plain text file (one utterance a line, ids
// "1", "2", ... by line). An empty line, or an item without text, is
// refused naming the line; ids must be unique.
func LoadTextCorpus(path string) ([]TextItem, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	col := collect{corpus: path}
	var items []TextItem
	ext := strings.ToLower(filepath.Ext(path))
	for i, l := range lines {
		n := i + 1
		if ext == ".lst" || ext == ".jsonl" {
			l = bytes.TrimRight(l, "\r")
		}
		if len(bytes.TrimSpace(l)) == 0 {
			col.add(&CorpusError{File: path, Line: n, Err: errors.New("empty line: every line must be an utterance")})
			continue
		}
		it := TextItem{Line: n}
		switch ext {
		case ".jsonl":
			dec := json.NewDecoder(bytes.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&it); err != nil {
				col.add(&CorpusError{File: path, Line: n, Err: fmt.Errorf("not a text corpus line {id, text, language?, voice?, ref_audio?, ref_text?}: %v", err)})
				continue
			}
			if it.ID == "" {
				col.add(&CorpusError{File: path, Line: n, Err: errors.New(`no "id"`)})
				continue
			}
		case ".lst":
			l, err := parseSeedTTSLine(string(l))
			if err != nil {
				col.add(&CorpusError{File: path, Line: n, Err: err})
				continue
			}
			it.ID, it.RefText, it.RefAudio, it.Text = l.id, l.text, l.wav, l.speak
		default:
			it.ID, it.Text = strconv.Itoa(n), strings.TrimRight(string(l), "\r")
		}
		if strings.TrimSpace(it.Text) == "" {
			col.add(&CorpusError{File: path, Line: n, Err: errors.New("no text to speak")})
			continue
		}
		if it.RefAudio != "" {
			it.RefAudio = relTo(path, it.RefAudio)
		}
		items = append(items, it)
	}
	if err := col.err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, &CorpusError{File: path, Err: errors.New("no utterances in the corpus")}
	}
	seen := map[string]int{}
	for _, it := range items {
		if prev, ok := seen[it.ID]; ok {
			return nil, &CorpusError{File: path, Line: it.Line, Err: fmt.Errorf("id %q is already used on line %d", it.ID, prev)}
		}
		seen[it.ID] = it.Line
	}
	return items, nil
}

// ttsEnvelopes builds one JSON body per item.
type ttsEnvelopes struct {
	members         []byte // `"model":…,` and the target's fields, each followed by a comma
	stream          bool
	voice, language bool // the target sets them: an item's own is not sent
}

// ttsReserved are the members benchseal writes itself.
var ttsReserved = []string{"model", "input", "ref_audio", "ref_text", "stream"}

// Envelope is the target's JSON members: model, then the target's
// fields sorted, each a JSON string (SGLang-Omni checks raw types
// strictly, sglang_omni/serve/speech_service.py _validate_raw_payload@3f4286eb:
// a field it wants as a number must not be sent this way), and
// "stream":true when the target streams.
func (tts) Envelope(t Target) (Envelopes, error) {
	var b bytes.Buffer
	put := func(k, v string) { putMember(&b, k, v) }
	put("model", t.Model)
	keys := make([]string, 0, len(t.Fields))
	for k := range t.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(ttsReserved, k) {
			return nil, fmt.Errorf("field %q is set by benchseal", k)
		}
		put(k, t.Fields[k])
	}
	_, voice := t.Fields["voice"]
	_, lang := t.Fields["language"]
	return &ttsEnvelopes{members: b.Bytes(), stream: t.Stream, voice: voice, language: lang}, nil
}

// For is item's body: {<the target's members>, "voice" (the item's, when
// the target sets none), "input", "ref_text", "stream", "ref_audio":
// "data:audio/wav;base64,} around the reference clip's base64 text. An
// item without a reference clip (NoInput) is the whole body, without
// ref_audio: it needs a voice, its own or the target's.
func (e *ttsEnvelopes) For(item Item) (Envelope, error) {
	if strings.TrimSpace(item.Speak) == "" {
		return Envelope{}, fmt.Errorf("item %s: no text to speak", item.ID)
	}
	if item.NoInput && item.Voice == "" && !e.voice {
		return Envelope{}, &NoVoiceError{Item: item.ID, Source: item.Source}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	b.Write(e.members)
	put := func(k, v string) { putMember(&b, k, v) }
	if item.Voice != "" && !e.voice {
		put("voice", item.Voice)
	}
	if item.Language != "" && !e.language {
		put("language", item.Language)
	}
	put("input", item.Speak)
	if item.Text != "" {
		put("ref_text", item.Text)
	}
	if e.stream {
		b.WriteString(`"stream":true,`)
	}
	if item.NoInput {
		body := b.Bytes()
		body[len(body)-1] = '}' // the last member's comma: "input" was written
		return Envelope{ContentType: "application/json", Prefix: slices.Clone(body)}, nil
	}
	b.WriteString(`"ref_audio":"data:audio/wav;base64,`)
	return Envelope{ContentType: "application/json", Prefix: slices.Clone(b.Bytes()), Suffix: []byte(`"}`)}, nil
}

// NoVoiceError is a corpus item with neither a reference clip nor a
// voice, sent to a target that sets no voice: the request would leave the
// voice to the engine's default ("Vivian" in both engines' CustomVoice,
// internal/engine's tts rows), which no record would name.
type NoVoiceError struct {
	Item, Source string
}

func (e *NoVoiceError) Error() string {
	where := ""
	if e.Source != "" {
		where = " (" + e.Source + ")"
	}
	return fmt.Sprintf("item %s%s has no ref_audio and no voice: give it a \"voice\" or a \"ref_audio\", or name one voice for every item with --form voice=NAME", e.Item, where)
}

// putMember writes "k":"v", (JSON strings) to b.
func putMember(b *bytes.Buffer, k, v string) {
	kb, _ := json.Marshal(k)
	vb, _ := json.Marshal(v)
	b.Write(kb)
	b.WriteByte(':')
	b.Write(vb)
	b.WriteByte(',')
}
