package bench

import (
	"errors"
	"maps"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
)

// What a setting of a run is refused for (SettingError.Err).
var (
	ErrKeyValue      = errors.New("want key=value")
	ErrNameURL       = errors.New("want NAME=URL with an http:// or https:// URL")
	ErrReservedField = errors.New("benchseal sets this field itself")
	ErrNoSuchTarget  = errors.New("no such target")
	ErrBothCounts    = errors.New("requests and passes exclude each other")
	ErrAtLeastOne    = errors.New("must be at least 1")
)

// SettingError is one value of a run's settings that cannot be used.
// Setting names what it sets ("form", "target", "model", "passes"), never
// a command-line flag: the CLI names its flag.
type SettingError struct {
	Setting string
	Value   string // as given
	Target  string // ErrNoSuchTarget: the target's name
	Err     error
}

func (e *SettingError) Error() string {
	return e.Setting + " " + strconv.Quote(e.Value) + ": " + e.Err.Error()
}

func (e *SettingError) Unwrap() error { return e.Err }

// ParseTarget splits a target given as NAME=URL; the URL is http:// or
// https://.
func ParseTarget(spec string) (name, url string, err error) {
	name, url, ok := strings.Cut(spec, "=")
	if !ok || name == "" || !(strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://")) {
		return "", "", &SettingError{Setting: "target", Value: spec, Err: ErrNameURL}
	}
	return name, url, nil
}

// Targets resolves the targets of a run: each NAME=URL of specs with the
// form fields every request sends besides file, model and stream
// (language and response_format where not empty, then each key=value of
// forms; a NAME:key=value sets key for target NAME alone: a field whose
// wire shape differs by engine, such as chat-audio's audio_part), and the
// models: a MODEL for every target without one, a NAME=MODEL for that
// target.
func Targets(specs, models, forms []string, language, format string) ([]Target, error) {
	fields := map[string]string{}
	if language != "" {
		fields["language"] = language
	}
	if format != "" {
		fields["response_format"] = format
	}
	own := map[string]map[string]string{} // NAME: its own fields
	for _, kv := range forms {
		k, v, ok := strings.Cut(kv, "=")
		name, key, per := strings.Cut(k, ":")
		if !per {
			key = k
		}
		if !ok || key == "" || per && name == "" {
			return nil, &SettingError{Setting: "form", Value: kv, Err: ErrKeyValue}
		}
		if key == "file" || key == "model" || key == "stream" {
			return nil, &SettingError{Setting: "form", Value: key, Err: ErrReservedField}
		}
		if !per {
			fields[key] = v
			continue
		}
		if own[name] == nil {
			own[name] = map[string]string{}
		}
		own[name][key] = v
	}
	var ts []Target
	for _, spec := range specs {
		name, url, err := ParseTarget(spec)
		if err != nil {
			return nil, err
		}
		f := fields
		if o, ok := own[name]; ok {
			f = maps.Clone(fields)
			maps.Copy(f, o)
			delete(own, name)
		}
		ts = append(ts, Target{Name: name, URL: url, Fields: f})
	}
	for name := range own {
		return nil, &SettingError{Setting: "form", Value: name + ":", Target: name, Err: ErrNoSuchTarget}
	}
	for _, m := range models {
		name, model, per := strings.Cut(m, "=")
		found := false
		for i := range ts {
			switch {
			case !per && ts[i].Model == "":
				ts[i].Model = m
			case per && ts[i].Name == name:
				ts[i].Model, found = model, true
			}
		}
		if per && !found {
			return nil, &SettingError{Setting: "model", Value: m, Target: name, Err: ErrNoSuchTarget}
		}
	}
	return ts, nil
}

// RequestCounts settles the measured requests of each level: requests as
// given, else passes over a corpus of clips clips, else the default of
// max(clips, 8 × concurrency) per level (every clip at least once, eight
// requests per worker). passes is 0 when not given.
func RequestCounts(levels, requests []int, passes, clips int) ([]int, error) {
	switch {
	case requests != nil && passes != 0:
		return nil, &SettingError{Setting: "passes", Value: strconv.Itoa(passes), Err: ErrBothCounts}
	case requests != nil:
		return requests, nil
	case passes > 0:
		return []int{passes * clips}, nil
	case passes < 0:
		return nil, &SettingError{Setting: "passes", Value: strconv.Itoa(passes), Err: ErrAtLeastOne}
	}
	var out []int
	for _, c := range levels {
		out = append(out, max(clips, 8*c))
	}
	return out, nil
}

// Scoring is how a run scores its transcripts: normalizer "" is zh for a
// language starting with "zh", whisper-en otherwise; an unknown normalizer
// or aligner is a *score.OptionError.
func Scoring(normalizer, aligner, language string, failuresAsDeletions bool) (schemas.Scoring, error) {
	if normalizer == "" {
		normalizer = score.NormalizerWhisperEN
		if strings.HasPrefix(language, "zh") {
			normalizer = score.NormalizerZH
		}
	}
	if err := (score.Options{Normalizer: normalizer, Aligner: aligner}).Check(); err != nil {
		return schemas.Scoring{}, err
	}
	failures := "excluded"
	if failuresAsDeletions {
		failures = "deletions"
	}
	return schemas.Scoring{Normalizer: normalizer, Aligner: aligner, Unit: score.UnitOf(normalizer), Failures: failures}, nil
}
