package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/verdict"
)

// Compare gives the conclusion's verdict (the same verdict.Compare over the
// same sides) and replay's figures; pairs rename; protocols that differ and
// pairs that cannot be made are refused with what is wrong.
func TestCompareBundles(t *testing.T) {
	a, b := fixture(), fixture()
	// B's vllm-omni at two thirds of the throughput at every repeat.
	for i := range b.Claims.Targets {
		if b.Claims.Targets[i].Target != "vllm-omni" {
			continue
		}
		for j := range b.Claims.Targets[i].Levels {
			l := &b.Claims.Targets[i].Levels[j]
			for k := range l.Repeats {
				l.Repeats[k].ReqPerS *= 2.0 / 3
			}
			l.Median.ReqPerS *= 2.0 / 3
			l.Min.ReqPerS *= 2.0 / 3
			l.Max.ReqPerS *= 2.0 / 3
		}
	}
	a.Records, b.Records = nil, nil
	c, err := Compare(CompareSide{In: a, Path: "a.tar.zst"}, CompareSide{In: b, Path: "b.tar.zst"}, nil, claims.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pairs) != 2 || c.Pairs[0].A != "sglang-omni" || c.Pairs[1].A != "vllm-omni" {
		t.Fatalf("pairs %+v", c.Pairs)
	}
	va, vb := newView(a), newView(b)
	for _, p := range c.Pairs {
		for _, l := range p.Levels {
			want := verdict.Compare(va.side(p.A, va.lookup(p.A, l.Concurrency)), vb.side(p.B, vb.lookup(p.B, l.Concurrency)), verdict.Options{MinEffect: compareEffect(claims.DefaultTolerance)})
			if got := va.words(want, "A:"+p.A, "B:"+p.B); l.Words != got {
				t.Errorf("%s c=%d: %q, the conclusion's rule says %q", p.A, l.Concurrency, l.Words, got)
			}
		}
	}
	if c.Pairs[0].Differ != 0 || c.Pairs[1].Differ == 0 || c.Differ != c.Pairs[1].Differ {
		t.Errorf("differ: %d, %d, total %d", c.Pairs[0].Differ, c.Pairs[1].Differ, c.Differ)
	}
	if l := c.Pairs[1].Levels[0]; l.Verdict != "ahead" || l.Leader != "A" || !strings.HasPrefix(l.Words, "A:vllm-omni ahead by 50") {
		t.Errorf("vllm-omni c=1: %+v", l)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**Figures beyond the tolerance (") || !strings.Contains(md.String(), "## A:vllm-omni vs B:vllm-omni") ||
		!strings.Contains(md.String(), "| range over the two runs' 3 repeats | verdict |") {
		t.Errorf("markdown:\n%s", md.String())
	}

	// One pair, renamed.
	c, err = Compare(CompareSide{In: a}, CompareSide{In: b}, []Pair{{"vllm-omni", "sglang-omni"}}, claims.DefaultTolerance)
	if err != nil || len(c.Pairs) != 1 || len(c.OnlyA) != 1 || c.OnlyA[0] != "sglang-omni" || c.OnlyB[0] != "vllm-omni" {
		t.Fatalf("renamed pair: %v %+v", err, c)
	}
	for _, f := range c.Pairs[0].Figures {
		if f.Target != "vllm-omni" || f.Metric == "" {
			t.Errorf("figure %+v: named by A's target, every level on both sides", f)
		}
	}
	var pe *PairError
	if _, err := Compare(CompareSide{In: a}, CompareSide{In: b}, []Pair{{"vllm-omni", "x"}}, claims.DefaultTolerance); !errors.As(err, &pe) || !strings.Contains(err.Error(), `B has no target "x"`) {
		t.Errorf("unknown target: %v", err)
	}

	// Protocols: every difference named.
	b2 := fixture()
	b2.Run.Protocol.Requests = []int{64, 64, 128, 256, 256}
	b2.Run.Protocol.Stream = true
	b2.Run.Corpus = b2.Run.Corpus[1:]
	var pr *ProtocolError
	_, err = Compare(CompareSide{In: a}, CompareSide{In: b2}, nil, claims.DefaultTolerance)
	if !errors.As(err, &pr) || len(pr.Differences) != 3 ||
		pr.Differences[0] != "protocol.requests: A [64,64,128,256,512], B [64,64,128,256,256]" ||
		pr.Differences[1] != "protocol.stream: A false, B true" || !strings.HasPrefix(pr.Differences[2], "corpus: A 20 clips (digest ") {
		t.Errorf("protocol: %v", err)
	}

	// Tasks: a run of another task is refused before its protocol is
	// compared; an absent task is ASR's, the same as "asr".
	b3 := fixture()
	b3.Run.Protocol.Task = "tts"
	var te *TaskError
	if _, err := Compare(CompareSide{In: a}, CompareSide{In: b3}, nil, claims.DefaultTolerance); !errors.As(err, &te) || te.A != "asr" || te.B != "tts" {
		t.Errorf("another task: err = %v, want a *TaskError naming asr and tts", err)
	}
	a.Run.Protocol.Task, b3.Run.Protocol.Task = "", "asr"
	if _, err := Compare(CompareSide{In: a}, CompareSide{In: b3}, nil, claims.DefaultTolerance); err != nil {
		t.Errorf("absent task against \"asr\": %v", err)
	}
}

// The requests paired targets sent (model and form fields) are held equal
// or named: a pair that differs in language is never printed as "the same
// on both sides".
func TestCompareRequests(t *testing.T) {
	a, b := fixture(), fixture()
	a.Records, b.Records = nil, nil
	// The fixture's sglang-omni sends language=en, its vllm-omni none.
	c, err := Compare(CompareSide{In: a}, CompareSide{In: b}, []Pair{{"vllm-omni", "sglang-omni"}}, claims.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Pairs[0].RequestDifferences; len(d) != 1 || d[0] != `language: A not sent, B "en"` || c.RequestsDiffer != 1 {
		t.Errorf("request differences %q (%d pairs differ), want the language named", d, c.RequestsDiffer)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "and so are the requests") || !strings.Contains(md.String(), "but the requests of 1 of 1 pairs differ") ||
		!strings.Contains(md.String(), `**The requests differ:** language: A not sent, B "en": the figures compare different requests`) {
		t.Errorf("markdown does not name the different requests:\n%s", md.String())
	}

	// Pairs of the same name sent the same; a model renamed on one side is named.
	c, err = Compare(CompareSide{In: a}, CompareSide{In: b}, nil, claims.DefaultTolerance)
	if err != nil || c.RequestsDiffer != 0 || len(c.Pairs[0].RequestDifferences) != 0 {
		t.Fatalf("same requests: %v %+v", err, c)
	}
	md.Reset()
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Protocol (the same on both sides, and so are the requests of every pair):") ||
		!strings.Contains(md.String(), "**Requests (the same on both sides):** model Qwen/Qwen3-ASR-1.7B, language=en, response\\_format=json.") {
		t.Errorf("markdown:\n%s", md.String())
	}
	b.Run.Targets[1].Model = "qwen3-asr"
	delete(b.Run.Targets[1].RequestFields, "response_format")
	c, err = Compare(CompareSide{In: a}, CompareSide{In: b}, nil, claims.DefaultTolerance)
	if d := c.Pairs[1].RequestDifferences; err != nil || len(d) != 2 || d[0] != `model: A "Qwen/Qwen3-ASR-1.7B", B "qwen3-asr"` || d[1] != `response_format: A "json", B not sent` {
		t.Errorf("%v: differences %q", err, d)
	}
}

// One repeat a side: compare's interval column is not called a 95 %
// interval, and its words do not deny the interval it shows.
func TestCompareSingleRepeat(t *testing.T) {
	a := fixture()
	for ti := range a.Claims.Targets {
		for li := range a.Claims.Targets[ti].Levels {
			l := &a.Claims.Targets[ti].Levels[li]
			l.Repeats = l.Repeats[:1]
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	a.Records = records(a)
	c, err := Compare(CompareSide{In: a}, CompareSide{In: a}, nil, claims.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "95 % interval |") || strings.Contains(md.String(), "no interval") ||
		!strings.Contains(md.String(), "| interval from requests within the two runs' 1 repeat | verdict |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// compare's conclusion never contradicts its figure table: a lead it
// names is a req_per_s figure beyond the tolerance, and a move the table
// calls within the tolerance is never a lead (issue 23: "B ahead by
// 3.7–6.4 %" above "every one judged is within the tolerance").
func TestCompareConclusionFollowsFigures(t *testing.T) {
	a, b := fixture(), fixture()
	factor := []float64{1.07, 1.04, 1.09, 1.12, 1.5} // B's sglang-omni, level by level
	for i := range b.Claims.Targets {
		if b.Claims.Targets[i].Target != "sglang-omni" {
			continue
		}
		for j := range b.Claims.Targets[i].Levels {
			l := &b.Claims.Targets[i].Levels[j]
			for k := range l.Repeats {
				l.Repeats[k].ReqPerS *= factor[j]
			}
			l.Median, l.Min, l.Max = summarize(l.Repeats)
		}
	}
	a.Records, b.Records = nil, nil
	c, err := Compare(CompareSide{In: a}, CompareSide{In: b}, []Pair{{"sglang-omni", "sglang-omni"}}, claims.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Pairs[0]
	diff := map[int]bool{}
	for _, f := range p.Figures {
		if f.Metric == "req_per_s" {
			diff[f.Concurrency] = f.Verdict == claims.Diff
		}
	}
	kinds := map[string]int{}
	for _, l := range p.Levels {
		kinds[l.Verdict]++
		if l.Verdict == "ahead" && !diff[l.Concurrency] {
			t.Errorf("c=%d: %q, while the table calls req_per_s within the tolerance", l.Concurrency, l.Words)
		}
		if l.Verdict == "within_noise" && !strings.Contains(l.Words, "within noise (±10 %)") {
			t.Errorf("c=%d: %q", l.Concurrency, l.Words)
		}
	}
	if kinds["ahead"] == 0 || kinds["within_noise"] == 0 {
		t.Errorf("the case should hold a lead and a difference within noise: %v (%+v)", kinds, p.Levels)
	}
	if strings.Contains(p.Summary, "ahead by 4") || strings.Contains(p.Summary, "ahead by 7") {
		t.Errorf("summary calls noise a lead: %s", p.Summary)
	}
}

// compare names, on its first screen, a side's targets that answered as
// benchseal's simulator.
func TestCompareSimulated(t *testing.T) {
	a, b := fixture(), fixture()
	b.Servers[0].Probes[0].Body = `{"object":"list","data":[],"benchseal_sim":"vllm"}`
	c, err := Compare(CompareSide{In: a}, CompareSide{In: b}, nil, claims.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Simulated) != 1 || c.Simulated[0] != "B:vllm-omni (the vllm persona)" {
		t.Fatalf("simulated: %q", c.Simulated)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(md.String(), "**Simulated servers:** B:vllm-omni (the vllm persona)"); i < 0 || i > strings.Index(md.String(), "## A:") {
		t.Errorf("not on the first screen:\n%s", md.String())
	}
}
