package report

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// variants are inputs that between them reach every string of the
// report: the fixture, and the fixture with each optional or rare part
// switched.
func variants() []Input {
	base := fixture()
	var out []Input
	add := func(f func(in *Input)) {
		in := fixture()
		f(&in)
		out = append(out, in)
	}
	out = append(out, base)
	// Open loops, without and with an SLO, a level failing and one
	// target observed nowhere: every outcome of kept up and the knee.
	out = append(out, openFixture(), capacityFixture())
	{
		in := capacityFixture() // neither keeps up at 150 req/s, one for its failures
		l := &in.Claims.Targets[0].Levels[4]
		l.Median.ArrivalGrowth = ptr(4.0)
		l.Repeats[0].Failed = 50
		out = append(out, in)
	}
	{
		in := openFixture()
		e2e, ttfb := 0.5, 0.2
		in.Run.Protocol.SLO = &schemas.SLO{E2ES: &e2e, TTFBS: &ttfb}
		in.Claims.Targets[0].Levels[0].Repeats[0].Failed = 3
		for li := range in.Claims.Targets[1].Levels {
			in.Claims.Targets[1].Levels[li].Median.ArrivalGrowth = nil
		}
		out = append(out, in)
	}
	add(func(in *Input) { unsteady(in, "vllm-omni", 16) })
	add(func(in *Input) {
		in.Servers[0].Probes[0].Body = `{"object":"list","data":[],"benchseal_sim":"vllm"}`
	})
	add(func(in *Input) {
		in.Run.Protocol.Perturb, in.Run.Complete, in.Run.Notes = false, false, []string{"note"}
		in.Run.Protocol.Passes, in.Run.Protocol.Stream = 2, true
		in.KeyEphemeral, in.BundleSHA256 = true, ""
		in.GPU = &schemas.GPUInfo{Reason: "no NVML"}
		in.Run.Tool.BinarySHA256 = ""
		in.Run.Corpus[0].Text = ""
		for ti := range in.Claims.Targets {
			for li := range in.Claims.Targets[ti].Levels {
				l := &in.Claims.Targets[ti].Levels[li]
				l.Repeats = l.Repeats[:1]
				l.Repeats[0].Requests = 1
				l.Repeats[0].CacheHits = nil
				l.Repeats[0].Errors = map[string]int{"": 1}
				l.Repeats[0].Failed = 1
				if ti == 1 {
					l.Repeats[0].Succeeded = 0
				}
			}
		}
		in.Verify = &verify.Report{Kind: "run directory", Failed: 1, Checks: []verify.Check{
			{ID: 6, Name: "claims", Status: verify.Fail, Omitted: 3, Findings: []verify.Finding{{Status: verify.Fail, Reason: "x"}}},
		}}
	})
	add(func(in *Input) {
		in.Run.Protocol.Warmup = []int{1, 1, 1, 1, 1}
		for i := range in.Run.Corpus {
			in.Run.Corpus[i].Text = ""
		}
		for ti := range in.Claims.Targets {
			for li := range in.Claims.Targets[ti].Levels {
				l := &in.Claims.Targets[ti].Levels[li]
				l.Median.Quality, l.Min.Quality, l.Max.Quality = nil, nil, nil
				l.Repeats[0].CacheHits = ptr(3.0)
				// Every repeat the same: no difference shown, one lead.
				for r := range l.Repeats {
					l.Repeats[r].ReqPerS = 5
				}
			}
		}
		in.Verify = &verify.Report{Kind: "bundle", Pinned: true, Checks: []verify.Check{{ID: 1, Name: "archive", Status: verify.Pass}}}
	})
	add(func(in *Input) { in.Claims.Targets = nil })
	out = append(out, stageVariants()...)
	out = append(out, ttsFixture())
	tts := ttsFixture()
	tts.Run.Protocol.Perturb = false
	for i := range tts.Run.Corpus {
		tts.Run.Corpus[i].Speak = ""
	}
	tts.Run.Corpus[0].Speak = "x"
	out = append(out, tts)
	rt := ttsFixture()
	rt.Run.Protocol.RoundTrip = &schemas.RoundTrip{ASR: "asr"}
	out = append(out, rt)
	out = append(out, perRequestVariants()...)
	add(func(in *Input) {
		// Nothing to warn about.
		in.Verify = &verify.Report{Kind: "bundle", Pinned: true}
		for ti := range in.Claims.Targets {
			for li := range in.Claims.Targets[ti].Levels {
				l := &in.Claims.Targets[ti].Levels[li]
				for r := range l.Repeats {
					l.Repeats[r].Failed = 0
				}
			}
		}
	})
	// tts items without a reference clip (named voices): some, then all.
	add(func(in *Input) {
		in.Run.Corpus = append(in.Run.Corpus, schemas.Clip{ID: "v", Speak: "hello", Voice: "vivian", Perturb: schemas.PerturbNoReference})
	})
	add(func(in *Input) {
		in.Run.Corpus = []schemas.Clip{{ID: "v", Speak: "hello", Voice: "vivian", Perturb: schemas.PerturbNoReference}}
	})
	for _, all := range []bool{false, true} {
		tts := ttsFixture()
		if all {
			tts.Run.Corpus = nil
		}
		tts.Run.Corpus = append(tts.Run.Corpus, schemas.Clip{ID: "v", Speak: "hello", Voice: "vivian", Perturb: schemas.PerturbNoReference})
		out = append(out, tts)
	}
	return out
}

// TestLangComplete renders every variant in every language: no English
// string may lack a translation, and no format may lose an argument.
func TestLangComplete(t *testing.T) {
	for _, lang := range Languages {
		if lang == "en" {
			continue
		}
		missing := map[string]bool{}
		for i, in := range variants() {
			in.Lang = lang
			v := newView(in)
			v.missing = missing
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			bs := v.build()
			for _, bl := range append(append(mdBlocks(bs), htmlBlocks(bs)...), v.summaryBlocks()...) {
				writeMarkdown(w, bl, true)
			}
			w.WriteString(v.tr("Summary to paste (SUMMARY.md, %d words)", 1))
			for _, ch := range append(slices.Clone(Charts), Stages, OpenLatency, Goodput, TaskFigure) {
				v.svg(w, ch)
			}
			w.Flush()
			if s := buf.String(); strings.Contains(s, "%!") {
				j := strings.Index(s, "%!")
				t.Errorf("%s, variant %d: a format lost its arguments: %q", lang, i, s[max(0, j-80):min(len(s), j+40)])
			}
		}
		var keys []string
		for k := range missing {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Errorf("%s: no translation for %q", lang, k)
		}
	}
	// Every key of a table is a string of the report's source or one it
	// looks up by value: a stale key is a string nobody sees.
	src := ""
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "lang_zh.go" {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src += string(b)
		}
	}
	for k := range zh {
		if !strings.Contains(src, strconv.Quote(k)) && !slices.Contains(byValue, k) {
			t.Errorf("zh: key %q is not in the source", k)
		}
	}
}

// The verdict words come from one rule in every language: the same
// input gives the same verdict kinds, in English and in Chinese.
func TestLangSameNumbers(t *testing.T) {
	in := fixture()
	var en, zhb bytes.Buffer
	if err := Markdown(&en, in); err != nil {
		t.Fatal(err)
	}
	in.Lang = "zh"
	if err := Markdown(&zhb, in); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"1.22×", "1.15×–1.29×", "8.00 \\[7.76–8.24\\]", "6.57 \\[6.37–6.77\\]"} {
		if !strings.Contains(en.String(), s) || !strings.Contains(zhb.String(), s) {
			t.Errorf("%q is not in both languages", s)
		}
	}
	if !strings.Contains(zhb.String(), "sglang-omni 领先 22 %") || !strings.Contains(zhb.String(), "## 结论") {
		t.Errorf("the Chinese report lacks its conclusion:\n%.600s", zhb.String())
	}
}

// TestTaskWords: every registered task's words, figure labels, section,
// caption and chart are in every language the report has, so a report in
// any language of any task composes its sentences from its own words.
func TestTaskWords(t *testing.T) {
	for _, name := range task.Names() {
		tk, _ := task.Lookup(name)
		var phrases []task.Phrase
		wv := reflect.ValueOf(task.WordsOf(tk))
		for i := range wv.NumField() {
			if p, ok := wv.Field(i).Interface().(task.Phrase); ok && p != nil {
				phrases = append(phrases, p)
			}
		}
		if f := task.FiguresOf(tk); f != nil {
			phrases = append(phrases, f.Section(), f.Caption())
			for _, s := range f.Figures() {
				phrases = append(phrases, s.Label)
			}
			if ch := f.Chart(); ch != nil {
				phrases = append(phrases, ch.Title, ch.Axis)
				for _, p := range []task.Phrase{ch.UnseenLabel, ch.Unseen, ch.UnseenCaption} {
					if p != nil {
						phrases = append(phrases, p)
					}
				}
			}
		}
		for _, p := range phrases {
			for _, lang := range Languages {
				if p[lang] == "" {
					t.Errorf("task %s: %q has no %s", name, p["en"], lang)
				}
			}
		}
	}
	if task.WordsOf(task.ChatAudio).Done.In("en") != "answered" || task.WordsOf(task.ChatAudio).Output.In("en") != "answer" {
		t.Error("chat-audio does not say answered/answer")
	}
}
