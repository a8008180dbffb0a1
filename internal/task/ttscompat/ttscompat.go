package ttscompat

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// The peers' names for --compat.
const (
	VLLMOmni   = "vllm-omni-tts"
	SGLangOmni = "sglang-omni-tts"
)

// Names are the tts peers --compat takes.
var Names = []string{VLLMOmni, SGLangOmni}

// Task is the task whose runs the peers' definitions apply to.
const Task = "tts"

// Figures are one target, level and repeat under a peer's definitions.
type Figures struct {
	Target      string `json:"target"`
	Concurrency int    `json:"concurrency"`
	Repeat      int    `json:"repeat"`
	Requests    int    `json:"requests"`
	// Completed are the peer's successes; Benchseal benchseal's (ok);
	// CountedFailed the peer's successes benchseal's rule fails, by class.
	Completed     int            `json:"completed"`
	Benchseal     int            `json:"benchseal_succeeded"`
	CountedFailed map[string]int `json:"counted_though_failed,omitempty"`
	WallS         float64        `json:"wall_s"`
	// AudioThroughput is Σ duration of the peer's successes ÷ WallS.
	AudioThroughput float64  `json:"audio_throughput_s_per_s"`
	ThroughputQPS   float64  `json:"throughput_qps"`
	RTFMean         *float64 `json:"rtf_mean"`
	RTFMedian       *float64 `json:"rtf_median"`
	TTFPMedianMs    *float64 `json:"ttfp_median_ms"` // first non-empty audio, streams only
}

// View is a tts run's figures under one peer's definitions.
type View struct {
	Peer string    `json:"peer"`
	Rule string    `json:"rule"`
	Rows []Figures `json:"rows"`
	// NotReproduced says what of the peer's figures the records cannot give.
	NotReproduced string `json:"not_reproduced"`
}

type key struct {
	target string
	c, r   int
}

// Compute is run's records under peer's definitions; it refuses a run
// that is not the tts task's, or a peer it does not know.
func Compute(peer string, run schemas.Run, recs []schemas.Record) (View, error) {
	v := View{Peer: peer, NotReproduced: "a body benchseal could not decode adds no seconds (its record keeps none); a broken-off stream counts as failed; the wall time is each repeat's measured window, not the peer's whole benchmark; whole frames are not checked"}
	switch peer {
	case VLLMOmni:
		v.Rule = "HTTP 200 (zero audio counted: vLLM-Omni's client only warns)"
	case SGLangOmni:
		v.Rule = "HTTP 200 with more than 0 s of audio (silent audio counted)"
	default:
		return v, fmt.Errorf("no tts peer %q: want %s", peer, strings.Join(Names, ", "))
	}
	if task.NameOf(&run) != task.TTS.Name() {
		return v, fmt.Errorf("--compat %s applies to a tts run; this run's task is %q", peer, task.NameOf(&run))
	}
	groups := map[key][]schemas.Record{}
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			k := key{r.Target, r.Concurrency, r.Repeat}
			groups[k] = append(groups[k], r)
		}
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	order := map[string]int{}
	for i, t := range run.Targets {
		order[t.Name] = i
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.c, b.c), cmp.Compare(order[a.target], order[b.target]), cmp.Compare(a.r, b.r))
	})
	for _, k := range keys {
		v.Rows = append(v.Rows, figures(peer, k, groups[k]))
	}
	return v, nil
}

func figures(peer string, k key, recs []schemas.Record) Figures {
	f := Figures{Target: k.target, Concurrency: k.c, Repeat: k.r, Requests: len(recs)}
	from, to := claims.MeasuredWindow(recs)
	f.WallS = float64(to-from) / 1e9
	var rtf, ttfp, secs []float64
	for _, r := range recs {
		if r.OK {
			f.Benchseal++
		}
		a, err := task.ParseAudio(r.Text)
		s := 0.0
		if err == nil {
			s = a.Seconds
		}
		ok := r.Status == 200 && r.ErrorClass != schemas.ErrStreamTruncated
		if peer == SGLangOmni {
			ok = ok && s > 0
		}
		if !ok {
			continue
		}
		f.Completed++
		if !r.OK {
			if f.CountedFailed == nil {
				f.CountedFailed = map[string]int{}
			}
			f.CountedFailed[r.ErrorClass]++
		}
		secs = append(secs, s)
		if s > 0 {
			rtf = append(rtf, float64(r.EndNs-r.StartNs)/1e9/s)
		}
		if err == nil && a.Stream != "" && r.FirstByteNs > 0 {
			ttfp = append(ttfp, float64(r.FirstByteNs-r.StartNs)/1e6)
		}
	}
	if f.WallS > 0 {
		slices.Sort(secs)
		var sum float64
		for _, s := range secs {
			sum += s
		}
		f.AudioThroughput, f.ThroughputQPS = sum/f.WallS, float64(f.Completed)/f.WallS
	}
	if len(rtf) > 0 {
		slices.Sort(rtf)
		var sum float64
		for _, x := range rtf {
			sum += x
		}
		f.RTFMean, f.RTFMedian = ptr(sum/float64(len(rtf))), ptr(claims.Percentile(rtf, 50))
	}
	if len(ttfp) > 0 {
		slices.Sort(ttfp)
		f.TTFPMedianMs = ptr(claims.Percentile(ttfp, 50))
	}
	return f
}

func ptr(x float64) *float64 { return &x }

// WriteTable prints the view as a Markdown table, cell escaping each
// cell, then the rule and what it does not reproduce.
func (v View) WriteTable(w io.Writer, cell func(string) string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s definitions (--compat %s)\n\n", peerName(v.Peer), v.Peer)
	b.WriteString("| target | concurrency | repeat | requests | completed (peer) | succeeded (benchseal) | counted though failed | audio s/s | req/s | RTF mean | RTF median | TTFP median ms |\n")
	b.WriteString("|:---|---:|---:|---:|---:|---:|:---|---:|---:|---:|---:|---:|\n")
	opt := func(p *float64) string {
		if p == nil {
			return "—"
		}
		return strconv.FormatFloat(*p, 'f', 3, 64)
	}
	for _, f := range v.Rows {
		counted := "0"
		if len(f.CountedFailed) > 0 {
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(f.CountedFailed)) {
				parts = append(parts, c+" "+strconv.Itoa(f.CountedFailed[c]))
			}
			counted = strings.Join(parts, ", ")
		}
		row := []string{f.Target, strconv.Itoa(f.Concurrency), strconv.Itoa(f.Repeat), strconv.Itoa(f.Requests), strconv.Itoa(f.Completed),
			strconv.Itoa(f.Benchseal), counted, strconv.FormatFloat(f.AudioThroughput, 'f', 3, 64), strconv.FormatFloat(f.ThroughputQPS, 'f', 3, 64),
			opt(f.RTFMean), opt(f.RTFMedian), opt(f.TTFPMedianMs)}
		for i := range row {
			row[i] = cell(row[i])
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\nSuccess under this view: %s. Not benchseal's claims: benchseal's rule (%s) fails silent, too short and undecodable answers. Not reproduced from the records: %s.\n", v.Rule, task.TTSSuccessRule, v.NotReproduced)
	_, err := io.WriteString(w, b.String())
	return err
}

func peerName(p string) string {
	if p == VLLMOmni {
		return "vLLM-Omni's benchmark client's (vllm bench serve --omni)"
	}
	return "SGLang-Omni's benchmark client's (benchmark_tts_seedtts.py)"
}
