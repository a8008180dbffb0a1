package bench

import (
	"errors"
	"slices"
	"testing"

	"github.com/benchseal/benchseal/internal/score"
)

func TestTargets(t *testing.T) {
	ts, err := Targets([]string{"a=http://h:1", "b=https://h:2"}, []string{"b=mb", "m"}, []string{"temperature=0", "x=1=2"}, "en", "json")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name != "a" || ts[0].URL != "http://h:1" || ts[0].Model != "m" || ts[1].Model != "mb" {
		t.Fatalf("targets %+v", ts)
	}
	want := map[string]string{"language": "en", "response_format": "json", "temperature": "0", "x": "1=2"}
	for k, v := range want {
		if ts[1].Fields[k] != v {
			t.Errorf("field %s = %q, want %q", k, ts[1].Fields[k], v)
		}
	}
	for _, c := range []struct {
		specs, models, forms []string
		setting, value       string
		want                 error
	}{
		{[]string{"a"}, nil, nil, "target", "a", ErrNameURL},
		{[]string{"=http://h"}, nil, nil, "target", "=http://h", ErrNameURL},
		{[]string{"a=ftp://h"}, nil, nil, "target", "a=ftp://h", ErrNameURL},
		{[]string{"a=http://h"}, []string{"b=m"}, nil, "model", "b=m", ErrNoSuchTarget},
		{[]string{"a=http://h"}, nil, []string{"novalue"}, "form", "novalue", ErrKeyValue},
		{[]string{"a=http://h"}, nil, []string{"=v"}, "form", "=v", ErrKeyValue},
		{[]string{"a=http://h"}, nil, []string{"model=x"}, "form", "model", ErrReservedField},
		{[]string{"a=http://h"}, nil, []string{"stream=true"}, "form", "stream", ErrReservedField},
	} {
		_, err := Targets(c.specs, c.models, c.forms, "", "")
		var se *SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || se.Value != c.value || !errors.Is(err, c.want) {
			t.Errorf("Targets(%v, %v, %v) = %v, want %s %q: %v", c.specs, c.models, c.forms, err, c.setting, c.value, c.want)
		}
	}
}

func TestRequestCounts(t *testing.T) {
	for _, c := range []struct {
		levels, requests []int
		passes, clips    int
		want             []int
		err              error
	}{
		{[]int{1, 4, 16}, nil, 0, 40, []int{40, 40, 128}, nil},
		{[]int{1, 2}, []int{5}, 0, 40, []int{5}, nil},
		{[]int{1, 2}, nil, 3, 40, []int{120}, nil},
		{[]int{1}, nil, -1, 40, nil, ErrAtLeastOne},
		{[]int{1}, []int{5}, 2, 40, nil, ErrBothCounts},
	} {
		got, err := RequestCounts(c.levels, c.requests, c.passes, c.clips)
		if !errors.Is(err, c.err) || !slices.Equal(got, c.want) {
			t.Errorf("RequestCounts(%v, %v, %d, %d) = %v, %v; want %v, %v", c.levels, c.requests, c.passes, c.clips, got, err, c.want, c.err)
		}
	}
}

func TestScoring(t *testing.T) {
	for _, c := range []struct {
		norm, lang, wantNorm, unit string
	}{{"", "en", "whisper-en", "word"}, {"", "zh-CN", "zh", "char"}, {"", "", "whisper-en", "word"}, {"basic", "zh", "basic", "word"}} {
		s, err := Scoring(c.norm, "unit", c.lang, false)
		if err != nil || s.Normalizer != c.wantNorm || s.Unit != score.UnitOf(c.wantNorm) || s.Aligner != "unit" || s.Failures != "excluded" {
			t.Errorf("Scoring(%q, lang %q) = %+v, %v; want normalizer %s", c.norm, c.lang, s, err, c.wantNorm)
		}
	}
	if s, _ := Scoring("none", "sclite", "", true); s.Failures != "deletions" || s.Aligner != "sclite" {
		t.Errorf("failures as deletions: %+v", s)
	}
	var oe *score.OptionError
	if _, err := Scoring("klingon", "unit", "", false); !errors.As(err, &oe) || oe.Option != "normalizer" {
		t.Errorf("unknown normalizer: %v", err)
	}
	if _, err := Scoring("", "levenshtein", "", false); !errors.As(err, &oe) || oe.Option != "aligner" {
		t.Errorf("unknown aligner: %v", err)
	}
}
