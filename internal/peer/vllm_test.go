package peer

import (
	"strings"
	"testing"
)

// vllmFixture is what `vllm bench serve --save-result --save-detailed
// --max-concurrency 2 --num-prompts 4` writes (json.dump, one line): four
// requests, the third failed with HTTP 500. Worked out by hand:
//
//	completed 3 of 4; duration 2 s: 1.5 req/s; output tokens 4+2+0+2 = 8
//	(4 tok/s), input tokens of the completed 10+20+40 = 70 ((70+8)/2 = 39).
//	ttft 0.2 0.1 0.3: mean 200 ms, median 200, p99 0.2+0.98*0.1 = 298 ms.
//	tpot (latency-ttft)/(out-1): 0.8/3, 0.4, 0.7: median 400, p99 694 ms.
//	itl 0.2 0.3 0.3 0.4 0.7: mean 380, median 300, p99 0.4+0.96*0.3 = 688.
//	intervals [10,11) [10,10.5) [10.5,11.5): peak 2, span 1.5 s.
//	std: population standard deviation (numpy's default).
const vllmFixture = `{"date": "20261130-120000", "endpoint_type": "openai-audio", "backend": "openai-audio", "label": null, ` +
	`"model_id": "Qwen/Qwen3-ASR-1.7B", "tokenizer_id": "Qwen/Qwen3-ASR-1.7B", "num_prompts": 4, "request_rate": "inf", ` +
	`"burstiness": 1.0, "max_concurrency": 2, "duration": 2.0, "completed": 3, "failed": 1, "total_input_tokens": 70, ` +
	`"total_output_tokens": 8, "request_throughput": 1.5, "request_goodput": null, "output_throughput": 4.0, ` +
	`"total_token_throughput": 39.0, "input_lens": [10, 20, 30, 40], "output_lens": [4, 2, 0, 2], ` +
	`"ttfts": [0.2, 0.1, 0.0, 0.3], "itls": [[0.2, 0.3, 0.3], [0.4], [], [0.7]], "latencies": [1.0, 0.5, 0.0, 1.0], ` +
	`"start_times": [10.0, 10.0, 10.5, 10.5], "queue_times": [0.0, 0.0, 0.5, 0.5], ` +
	`"generated_texts": ["the cat sat", "hi", "", "ok"], "errors": ["", "", "HTTP 500: Internal Server Error", ""], ` +
	`"max_output_tokens_per_s": 5.0, "max_concurrent_requests": 2, "rtfx": 0.0, ` +
	`"mean_ttft_ms": 200.00000000000003, "median_ttft_ms": 200.0, "std_ttft_ms": 81.6496580927726, "p99_ttft_ms": 298.0, ` +
	`"mean_tpot_ms": 455.55555555555554, "median_tpot_ms": 400.0, "std_tpot_ms": 181.21673811444543, "p99_tpot_ms": 694.0, ` +
	`"mean_itl_ms": 380.0, "median_itl_ms": 300.0, "std_itl_ms": 172.04650534085252, "p99_itl_ms": 688.0}`

func TestVLLMBenchHonest(t *testing.T) {
	rep, err := VLLMBench(strings.NewReader(vllmFixture))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("broken: %q", brokenList(rep))
	}
	for _, name := range []string{"request_throughput", "total_input_tokens", "total_output_tokens", "completed", "failed",
		"max_concurrent_requests", "p99_ttft_ms", "std_tpot_ms", "p99_itl_ms", "completed + failed"} {
		if f, ok := figure(rep, "result", name); !ok || f.Status != Held {
			t.Errorf("%s: %+v", name, f)
		}
	}
	if f, _ := figure(rep, "result", "duration"); f.Status != NotObserved {
		t.Errorf("duration: %+v, want not observed (its lower bound holds)", f)
	}
}

func TestVLLMBenchDoctored(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"request_throughput": 1.5`, `"request_throughput": 2.0`, "request_throughput"},
		{`"completed": 3, "failed": 1`, `"completed": 4, "failed": 0`, "completed"},
		{`"p99_ttft_ms": 298.0`, `"p99_ttft_ms": 250.0`, "p99_ttft_ms"},
		{`"max_concurrent_requests": 2`, `"max_concurrent_requests": 3`, "max_concurrent_requests"},
		{`"duration": 2.0`, `"duration": 1.0`, "duration"},
		{`"num_prompts": 4`, `"num_prompts": 5`, "completed + failed"},
		{`"itls": [[0.2, 0.3, 0.3]`, `"itls": [[0.2, 0.3, 0.1]`, "mean_itl_ms"},
	} {
		in := strings.Replace(vllmFixture, c.from, c.to, 1)
		if in == vllmFixture {
			t.Fatalf("%q not in the fixture", c.from)
		}
		rep, err := VLLMBench(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := figure(rep, "result", c.want); f.Status != Broken {
			t.Errorf("%s -> %s: %s is %+v, want broken (broken: %q)", c.from, c.to, c.want, f, brokenList(rep))
		}
	}
}

// Without --save-detailed only the per-request latencies are left: which
// request failed is unknown, so the latency summaries are not observed.
func TestVLLMBenchSummaryOnly(t *testing.T) {
	in := vllmFixture
	for _, k := range []string{"input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors"} {
		i := strings.Index(in, `"`+k+`": [`)
		j := strings.Index(in[i:], `], "`) + i
		if k == "itls" {
			j = strings.Index(in[i:], `]], "`) + i + 1
		}
		in = in[:i] + in[j+3:]
	}
	rep, err := VLLMBench(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("broken: %q", brokenList(rep))
	}
	for _, name := range []string{"completed", "p99_ttft_ms", "max_concurrent_requests"} {
		if f, _ := figure(rep, "result", name); f.Status != NotObserved {
			t.Errorf("%s: %+v, want not observed", name, f)
		}
	}
	if f, _ := figure(rep, "result", "request_throughput"); f.Status != Held {
		t.Errorf("request_throughput: %+v", f)
	}
}

func TestVLLMBenchAppended(t *testing.T) {
	rep, err := VLLMBench(strings.NewReader(vllmFixture + "\n" + strings.Replace(vllmFixture, `"request_throughput": 1.5`, `"request_throughput": 1.6`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Status == Broken || rep.Groups[1].Status != Broken || rep.Groups[1].Scope != "result 2" {
		t.Errorf("groups: %+v", rep.Groups)
	}
	if _, err := VLLMBench(strings.NewReader(`{"completed": 1}`)); err == nil {
		t.Error("a JSON object without request_throughput: no error")
	}
}

// A field the peer tool never published (older vLLM without
// max_concurrent_requests, or null) is not observed, never broken
// (trial finding 12).
func TestVLLMBenchUnpublishedField(t *testing.T) {
	for _, repl := range []string{`"max_concurrent_requests": null, `, ``} {
		in := strings.Replace(vllmFixture, `"max_concurrent_requests": 2, `, repl, 1)
		rep, err := VLLMBench(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() {
			t.Errorf("%q: broken: %q", repl, brokenList(rep))
		}
		if f, _ := figure(rep, "result", "max_concurrent_requests"); f.Status != NotObserved || !strings.Contains(f.Reason, "not published") {
			t.Errorf("%q: max_concurrent_requests: %+v, want not observed", repl, f)
		}
	}
}
