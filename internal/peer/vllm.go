package peer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// VLLMBenchDefinitions names the file whose definitions VLLMBench
// reproduces (see the package documentation).
const VLLMBenchDefinitions = "vllm-project/vllm vllm/benchmarks/serve.py@009e6d4a (calculate_metrics, benchmark, main)"

// percentileKey is a summary key of serve.py's process_one_metric:
// p{P}_{metric}_ms, P written as an integer when it is one.
var percentileKey = regexp.MustCompile(`^p([0-9]+(?:\.[0-9]+)?)_([a-z0-9_]+)_ms$`)

var vllmMetrics = []string{"ttft", "tpot", "itl", "e2el", "client_queue_time"}

// VLLMBench checks the JSON that `vllm bench serve --save-result` writes
// (one object; --append-result writes several, one after another, and
// each is checked). It fails only when the file holds no JSON object.
func VLLMBench(r io.Reader) (*Report, error) {
	rep := &Report{Format: "vllm-bench", Definitions: VLLMBenchDefinitions, Groups: []Group{}, Unverifiable: vllmUnverifiable}
	dec := json.NewDecoder(r)
	for i := 1; ; i++ {
		var m map[string]json.RawMessage
		err := dec.Decode(&m)
		if err == io.EOF {
			if i == 1 {
				return nil, errors.New("reading the result JSON: empty file")
			}
			return rep, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the result JSON (object %d): %w", i, err)
		}
		if _, ok := m["request_throughput"]; !ok {
			return nil, fmt.Errorf("reading the result JSON (object %d): no request_throughput: not a vllm bench serve result", i)
		}
		scope := "result"
		if i > 1 || dec.More() {
			scope = fmt.Sprintf("result %d", i)
		}
		rep.add(vllmResult(scope, m).g)
	}
}

var vllmUnverifiable = []string{
	"duration: measured by the client's clock around the whole run; with --save-detailed only its lower bound (the span of the requests) is checked",
	"rtfx: the input audio durations are not saved",
	"request_goodput: the SLOs it was computed with are not saved",
	"cache defeat: no input hashes are saved; vllm bench serve does not perturb its inputs",
	"warm-ups (--num-warmups) are not saved",
}

func floats(m map[string]json.RawMessage, key string) ([]float64, bool) {
	var v []*float64
	if json.Unmarshal(m[key], &v) != nil || v == nil {
		return nil, false
	}
	out := make([]float64, len(v))
	for i, p := range v {
		if p != nil {
			out[i] = *p
		}
	}
	return out, true
}

func vllmResult(scope string, m map[string]json.RawMessage) *group {
	g := newGroup(scope, "")
	dur := number(m, "duration")
	completed, failed := number(m, "completed"), number(m, "failed")
	div := func(x float64) *float64 {
		if dur == nil || *dur <= 0 {
			return ptr(0)
		}
		return ptr(x / *dur)
	}
	if completed != nil {
		g.num("request_throughput", number(m, "request_throughput"), div(*completed), -1)
	}
	tin, tout := number(m, "total_input_tokens"), number(m, "total_output_tokens")
	if tout != nil {
		g.num("output_throughput", number(m, "output_throughput"), div(*tout), -1)
	}
	if tin != nil && tout != nil {
		g.num("total_token_throughput", number(m, "total_token_throughput"), div(*tin+*tout), -1)
	}
	if np := number(m, "num_prompts"); np != nil && completed != nil && failed != nil {
		if *completed+*failed == *np {
			g.held("completed + failed", *np, *completed+*failed)
		} else {
			g.broken("completed + failed", "not num_prompts: requests are missing from the counts", *np, *completed+*failed)
		}
	}

	// Per-request arrays. latencies and queue_times are always saved;
	// errors, ttfts, itls, output_lens, input_lens, start_times only with
	// --save-detailed.
	lat, haveLat := floats(m, "latencies")
	var errs []string
	haveErrs := json.Unmarshal(m["errors"], &errs) == nil && errs != nil
	var success []bool
	switch {
	case haveErrs:
		// A request failed when its error is set (RequestFuncOutput.error
		// is "" unless the request function caught a failure).
		success = make([]bool, len(errs))
		n := 0
		for i, e := range errs {
			success[i] = e == ""
			if success[i] {
				n++
			}
		}
		if completed != nil {
			g.count("completed", completed, n)
		}
		if failed != nil {
			g.count("failed", failed, len(errs)-n)
		}
	case haveLat && failed != nil && *failed == 0:
		success = make([]bool, len(lat))
		for i := range success {
			success[i] = true
		}
		if completed != nil {
			g.count("completed", completed, len(lat))
		}
	default:
		for _, k := range []string{"completed", "failed"} {
			g.notObserved(k, "which request failed is saved only with --save-detailed (errors)", number(m, k))
		}
	}
	n := len(success)
	sameLen := func(key string, l int) bool {
		if l != n {
			g.broken(key, fmt.Sprintf("%d entries for %d requests", l, n), l, n)
			return false
		}
		return true
	}
	ttfts, haveTTFT := floats(m, "ttfts")
	outLens, haveOut := floats(m, "output_lens")
	inLens, haveIn := floats(m, "input_lens")
	starts, haveStarts := floats(m, "start_times")
	queue, haveQueue := floats(m, "queue_times")
	var itls [][]float64
	haveITL := json.Unmarshal(m["itls"], &itls) == nil && itls != nil
	values := map[string][]float64{}
	if success != nil {
		if haveLat && sameLen("latencies", len(lat)) {
			values["e2el"] = pick(lat, success)
		}
		if haveTTFT && sameLen("ttfts", len(ttfts)) {
			values["ttft"] = pick(ttfts, success)
		}
		if haveITL && sameLen("itls", len(itls)) {
			v := []float64{}
			for i, l := range itls {
				if success[i] {
					v = append(v, l...)
				}
			}
			values["itl"] = v
		}
		if haveOut && haveLat && haveTTFT && sameLen("output_lens", len(outLens)) && len(lat) == n && len(ttfts) == n {
			// TPOT: (latency - ttft) / (output_len - 1) of successful
			// requests with more than one output token.
			v := []float64{}
			for i := range outLens {
				if success[i] && outLens[i] > 1 {
					v = append(v, (lat[i]-ttfts[i])/(outLens[i]-1))
				}
			}
			values["tpot"] = v
			var sum float64
			for i, o := range outLens {
				if !success[i] && o != 0 {
					g.broken("output_lens", fmt.Sprintf("failed request %d has %v output tokens (calculate_metrics counts 0)", i, o), o, 0)
				}
				sum += o
			}
			if tout != nil {
				g.count("total_output_tokens", tout, int(sum))
			}
		}
		if haveIn && sameLen("input_lens", len(inLens)) && tin != nil {
			g.count("total_input_tokens", tin, int(sumOf(pick(inLens, success))))
		}
		if haveQueue && sameLen("queue_times", len(queue)) && m["max_concurrency"] != nil && string(m["max_concurrency"]) != "null" {
			values["client_queue_time"] = pick(queue, success)
		}
		if haveStarts && haveLat && sameLen("start_times", len(starts)) && len(lat) == n {
			vllmPeak(g, m, starts, lat, success, dur)
		}
	}
	if !haveStarts {
		g.notObserved("max_concurrent_requests", "start_times are saved only with --save-detailed", number(m, "max_concurrent_requests"))
	}
	for _, metric := range vllmMetrics {
		vllmSummary(g, m, metric, values[metric], values[metric] != nil)
	}
	if rtfx := number(m, "rtfx"); rtfx != nil && *rtfx != 0 {
		g.notObserved("rtfx", "input audio durations are not saved", *rtfx)
	}
	return g
}

// vllmSummary checks mean/median/std/p*_{metric}_ms, which serve.py
// computes as numpy's mean, median, std and linear percentile of the
// values (0 when there is none: np.mean(values or 0)) times 1000.
func vllmSummary(g *group, m map[string]json.RawMessage, metric string, v []float64, have bool) {
	var keys []string
	for k := range m {
		if k == "mean_"+metric+"_ms" || k == "median_"+metric+"_ms" || k == "std_"+metric+"_ms" {
			keys = append(keys, k)
		} else if p := percentileKey.FindStringSubmatch(k); p != nil && p[2] == metric {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(v) == 0 {
		v = []float64{0}
	}
	for _, k := range keys {
		if !have {
			g.notObserved(k, "its per-request values are not saved (--save-detailed)", number(m, k))
			continue
		}
		var re *float64
		switch {
		case strings.HasPrefix(k, "mean_"):
			re = npMean(v)
		case strings.HasPrefix(k, "median_"):
			re = npPercentile(v, 50)
		case strings.HasPrefix(k, "std_"):
			re = npStd(v)
		default:
			p, _ := strconv.ParseFloat(percentileKey.FindStringSubmatch(k)[1], 64)
			re = npPercentile(v, p)
		}
		g.num(k, number(m, k), scale(re, 1000), -1)
	}
}

// vllmPeak: max_concurrent_requests is a sweep over the successful
// requests' half-open intervals [start, start + latency), ends before
// starts at the same instant; duration is at least their span.
func vllmPeak(g *group, m map[string]json.RawMessage, starts, lat []float64, success []bool, dur *float64) {
	type ev struct {
		at float64
		d  int
	}
	var evs []ev
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range starts {
		if !success[i] {
			continue
		}
		evs = append(evs, ev{starts[i], 1}, ev{starts[i] + lat[i], -1})
		lo, hi = min(lo, starts[i]), max(hi, starts[i]+lat[i])
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	g.count("max_concurrent_requests", number(m, "max_concurrent_requests"), peak)
	if dur != nil && len(evs) > 0 {
		if *dur < (hi-lo)*(1-1e-9) {
			g.broken("duration", fmt.Sprintf("shorter than the span of the successful requests (%.6g s)", hi-lo), *dur, hi-lo)
		} else {
			g.notObserved("duration", fmt.Sprintf("the client's own clock; its lower bound holds (the requests span %.6g s)", hi-lo), *dur)
		}
	}
}

func pick(v []float64, keep []bool) []float64 {
	out := []float64{}
	for i, x := range v {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

func sumOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}
