// Package peer checks benchmark results that benchseal did not measure:
// it reads what another tool published and its raw per-request data, and
// recomputes every published figure with that tool's own definitions. A
// figure is HELD when it follows from the raw data, BROKEN when it does
// not (arithmetic, counts, dropped samples, WER), NOT OBSERVED when the
// raw data it rests on is missing, or when the tool did not publish a
// count at all (absent or null: a version that never wrote it, such as
// vLLM's max_concurrent_requests before it existed; nothing published
// cannot be wrong). What a format cannot prove at all is
// listed in Report.Unverifiable. A Group's Status is its worst figure's;
// WriteText heads a group's line BROKEN when a figure broke, HELD when
// none broke and some held (its figures not observed listed beneath),
// NOT OBSERVED when none could be checked.
//
// # SGLang-Omni's ASR benchmark (SeedTTS)
//
// sgl-project/sglang-omni benchmarks/eval/benchmark_asr_seedtts.py at
// 070fc3b5bda3f134bc8ab08373722e3e7131b681, with the helpers it imports:
// benchmarks/tasks/asr.py at 0c594cf88be05037f0994c093aa0623a087d943c,
// benchmarks/metrics/wer.py at 01782f8f471cc9c63b030b6743a800ca546a609c,
// benchmarks/benchmarker/runner.py at 1b4b3750bd76c642ba8a7823edc2249d352443ec,
// benchmarks/benchmarker/utils.py at 070fc3b5, and
// benchmarks/metrics/performance.py in the version that publishes
// audio_throughput_s_per_s and rtf_p95 (the stored copy read does not name
// its commit; at 1b4b3750 neither field exists, and then rtfx is 0.0 and
// rtf_p95 null in every result).
//
// The result JSON is {schema_version, provenance, config{lang,
// num_samples, concurrencies, repeats, warmup, ...}, results: [one per
// level: {concurrency, repeats, evaluated, total, skipped, corpus_wer:
// {mean, min, max, n}, ... (every figure below), per_repeat: [one per
// repeat: {concurrency, repeat, evaluated, total, skipped, corpus_wer,
// per_sample_wer_max, wall_clock_s, throughput_samples_per_s, rtfx,
// latency_mean_s, latency_median_s, latency_p95_s, latency_p99_s,
// rtf_mean, rtf_p95, [text_ttft_*, inter_chunk_*], worker, resources}]}]}.
// --save-raw-dir writes conc{C}_rep{R}.jsonl per level and repeat, one
// line per sample of the corpus in corpus order (asr.py,
// build_asr_eval_results): {id, is_success, wer, ref_text, hyp_text,
// ref_norm, hyp_norm, audio_duration_s, latency_s, text_ttft_s,
// inter_chunk_s, error}; rep0 is the extra --profile-events pass, not
// part of the result. The definitions reproduced:
//
//   - A request succeeded (RequestResult.is_success, asr.py send_fn) on
//     HTTP 200 with a JSON body; empty text is a success. A sample is
//     evaluated (is_success in the raw file) when it succeeded and its
//     reference normalises to something (apply_wer; otherwise error
//     "Empty reference after normalization"). total is the number of
//     samples, evaluated the successes, skipped the rest.
//   - WER: jiwer.process_words(ref_norm, hyp_norm) per sample, the word
//     edit distance; per-sample wer = (S+D+I)/(S+D+H); corpus_wer =
//     sum(S+D+I)/sum(S+D+H) over evaluated samples, 0.0 when no reference
//     word, null when none was evaluated; per_sample_wer_max = max wer.
//     An empty hypothesis scores every reference word as a deletion.
//     ref_norm/hyp_norm are Whisper's EnglishTextNormalizer of
//     ref_text/hyp_text for English; they are also recomputed with
//     benchseal's whisper-en, which embeds Whisper's english.json whole.
//     The Chinese normaliser (zhon punctuation) is not reproduced.
//   - wall_clock_s: time.perf_counter() around the gathered pass
//     (runner.py, BenchmarkRunner.run), never in the raw data. Only its
//     lower bounds are checked: the longest request, and sum(latency)/C,
//     since at most C requests are in flight.
//   - throughput_samples_per_s = n / wall_clock_s, n = evaluated samples
//     with latency_s > 0 (wer.py calculate_asr_speed_metrics), unrounded.
//   - rtfx = round(sum(audio_duration_s > 0 of succeeded requests) /
//     wall_clock_s, 3) (performance.py audio_throughput_s_per_s), 0.0
//     without audio; audio_duration_s = (len(file) - 44) / (rate ×
//     channels × bits/8) (utils.py get_wav_duration), read from the raw
//     file, not recomputable without the clips.
//   - latency_mean/median/p95/p99_s: numpy mean and linear percentiles of
//     latency_s over the n samples above, unrounded; null when none was
//     evaluated.
//   - rtf_p95 = round(numpy p95 of latency_s/audio_duration_s over
//     succeeded requests, 4); rtf_mean = mean of latency_s/audio over the
//     n samples above with audio (wer.py), published only when rtf_p95 is.
//   - text_ttft_mean/median/p95/p99_s, inter_chunk_mean/p95/p99_s: numpy
//     mean/percentiles of the succeeded requests' text_ttft_s and of all
//     their inter_chunk_s, rounded to 4 (performance.py).
//   - Over repeats (_aggregate): evaluated, total, skipped are summed;
//     every figure gets statistics.mean, min, max and n over the repeats
//     where it is not null.
//
// # vllm bench serve
//
// vllm-project/vllm vllm/benchmarks/serve.py at
// 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 (calculate_metrics, benchmark,
// main). --save-result writes one JSON object (--append-result appends
// more): date, backend, model_id, num_prompts, request_rate, burstiness,
// max_concurrency, duration, completed, failed, total_input_tokens,
// total_output_tokens, request_throughput, request_goodput,
// output_throughput, total_token_throughput, max_concurrent_requests,
// rtfx, latencies, queue_times, {mean,median,std,pP}_{metric}_ms for the
// selected metrics (ttft, tpot, itl, e2el; client_queue_time with
// --max-concurrency), and with --save-detailed the per-request arrays
// input_lens, output_lens, start_times, ttfts, itls, generated_texts,
// errors. The definitions reproduced:
//
//   - A request failed when its error is set; completed counts the rest.
//     Without errors, success is known only when failed is 0.
//   - request_throughput = completed / duration; output_throughput =
//     total_output_tokens / duration; total_token_throughput = (input +
//     output tokens) / duration; total_output_tokens = sum(output_lens)
//     (0 for a failed request), total_input_tokens = sum of input_lens of
//     completed requests.
//   - ttft, e2el (latency), itl (all inter-token gaps) and tpot
//     ((latency-ttft)/(output_len-1), output_len > 1) of completed requests:
//     mean, median, std (population) and linear percentiles × 1000, the
//     statistics of [0] when there is none (np.mean(values or 0)).
//   - max_concurrent_requests: a sweep over the completed requests'
//     [start, start + latency), ends first at equal times; duration is at
//     least the span of those intervals.
//
// # Imports
//
// It owns benchseal import: other tools' results checked with their own
// definitions. Must never import: internal/bench, internal/sim, verify.
// Why: it reads what another tool published, it measures nothing.
package peer
