package fingerprint

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret value.
const Redacted = "[REDACTED]"

// secretName matches the tail of a key, flag or variable name that holds a
// secret. It is matched against the end of the name so that max_tokens or
// --tokenizer stay visible while HF_TOKEN, --api-key and hf_token do not.
// Plurals count (api_keys, passwords) except for token: max_num_batched_tokens
// is an engine knob the fairness check reads.
const secretName = `(?:api[_-]?keys?|apikeys?|access[_-]?keys?|(?:secret|private)[_-]?keys?|token|secrets?|passwords?|passwd|credentials?)`

var (
	// Authorization: Bearer X, "Authorization": "Basic X", authorization=X,
	// Cookie: a=X, Set-Cookie: X; Path=/: everything up to the closing quote
	// or the end of the line, since a scheme (Key X, AWS4-HMAC-SHA256
	// Credential=..., Signature=...) or a cookie may carry its secret in any
	// word. A list's first element is reached through its bracket so that
	// what authListRe missed (an unclosed list) still reads cleanly.
	authRe = regexp.MustCompile(`(?i)((?:authorization|cookie)["']?\s*[:=]\s*(?:\[\s*["']|["'])?)(?:(bearer|basic|token|digest|key|apikey|api-key)\s+)?([^"'\r\n]*[^\s"'])`)
	// "Authorization": ["Bearer X", ...], as Go prints an http.Header in
	// JSON and Python a dict of lists: the whole list becomes one redacted
	// element, since any element may be a secret.
	authListRe = regexp.MustCompile(`(?i)((?:authorization|cookie)["']?\s*[:=]\s*)\[\s*("(?:[^"\\]|\\.)*"|'[^']*')(?:\s*,\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'))*\s*\]`)
	// A bearer token anywhere else (curl -H, logs).
	bearerRe = regexp.MustCompile(`(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]+)`)
	// key=value, key: value, "key": "value", 'key': ['v1', 'v2'] (Python
	// reprs of parsed arguments, as vLLM logs them).
	kvRe = regexp.MustCompile(`(?i)(["']?)\b([a-z0-9_.-]*?` + secretName + `)(["']?)(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|\[[^\]]*\]|[^\s,;&"'}\])]+)`)
	// --api-key X, --token X, -token X.
	flagRe = regexp.MustCompile(`(?i)(\s|^)(--?[a-z0-9_-]*?` + secretName + `)(\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`)
	// Tokens recognisable by their prefix wherever they appear: Hugging
	// Face, OpenAI and Anthropic style, GitHub.
	tokenRe = regexp.MustCompile(`hf_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}`)
	// user:password@ in URLs (up to the last @, as URL parsers read it).
	urlPassRe = regexp.MustCompile(`(://[^/\s:@]+:)([^/\s]+)@`)
	// A user alone (https://TOKEN@host) is most often a token.
	urlUserRe = regexp.MustCompile(`(://)([^/\s:@\[\]]+)@`)
)

// harmlessKey reports keys that look secret by name but are not: the
// special tokens of a tokenizer config, which servers print in their
// self-description.
func harmlessKey(k string) bool {
	k = strings.ToLower(k)
	for _, p := range []string{"bos", "eos", "pad", "unk", "sep", "cls", "mask", "max", "num", "total", "prompt", "completion", "cached"} {
		if strings.HasPrefix(k, p+"_token") || strings.HasPrefix(k, p+"-token") {
			return true
		}
	}
	return false
}

// Redact replaces the secret values in s with [REDACTED]: HF_TOKEN=...,
// *_API_KEY=..., *_TOKEN=..., --api-key X, --api-key=X, --token X,
// Authorization, Bearer, Cookie and Set-Cookie values, JSON, YAML and
// Python-repr fields named like api_key, token, secret or password,
// passwords in URLs, and tokens recognisable by their prefix (hf_...,
// sk-..., ghp_...). It is meant to err on the side of hiding too much.
//
// Every value registered with AddSecrets is scrubbed first and last,
// wherever it appears, whatever surrounds it.
func Redact(s string) string { return secrets.redact(s) }

func (set *secretSet) redact(s string) string {
	return set.scrub(redactPatterns(set.scrub(s)))
}

// RedactMetrics is Redact for a Prometheus text exposition (a /metrics
// answer), line by line. The format is line-oriented (a sample, its labels
// and their escaped values are one line), so no secret spans lines; and
// redacting a whole 850 KB vLLM scrape at once cost ~190 ms a step
// boundary (every vLLM scrape has "token" in it, vllm:prompt_tokens_total,
// which sends the whole text through the key=value expressions), against
// a few ms for the lines that hold a trigger word (BenchmarkStepBoundary).
func RedactMetrics(s string) string {
	s = secrets.scrub(s)
	// One lower-cased copy for the trigger words of every line: ASCII
	// lowering keeps offsets; a line with other bytes is lowered on its
	// own, as Redact lowers it (Unicode folds some letters into ASCII).
	lowAll := []byte(s)
	for i, c := range lowAll {
		if 'A' <= c && c <= 'Z' {
			lowAll[i] = c + 'a' - 'A'
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		line, low := s[off:end], string(lowAll[off:end])
		if !isASCII(line) {
			low = strings.ToLower(line)
		}
		b.WriteString(redactPatternsLow(line, low))
		if end < len(s) {
			b.WriteByte('\n')
		}
		off = end + 1
	}
	return secrets.scrub(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func redactPatterns(s string) string { return redactPatternsLow(s, strings.ToLower(s)) }

// redactPatternsLow is redactPatterns given low, strings.ToLower(s).
func redactPatternsLow(s, low string) string {
	// The regular expressions cost far more than a scan for the words they
	// need; most log lines have none of them.
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	if has("authorization", "cookie") {
		s = redactAuth(s)
	}
	if has("bearer") {
		s = bearerRe.ReplaceAllString(s, "${1}"+Redacted)
	}
	if has("key", "token", "secret", "passw", "credential") {
		s = redactKV(s)
	}
	if has("hf_", "sk-", "gh") {
		s = tokenRe.ReplaceAllString(s, Redacted)
	}
	if has("://") {
		s = urlPassRe.ReplaceAllString(s, "${1}"+Redacted+"@")
		s = urlUserRe.ReplaceAllString(s, "${1}"+Redacted+"@")
	}
	return s
}

func redactAuth(s string) string {
	s = authListRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := authListRe.FindStringSubmatch(m)
		q := sm[2][:1]
		return sm[1] + "[" + q + Redacted + q + "]"
	})
	return authRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := authRe.FindStringSubmatch(m)
		if sm[2] != "" {
			return sm[1] + sm[2] + " " + Redacted
		}
		return sm[1] + Redacted
	})
}

func redactKV(s string) string {
	s = kvRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := kvRe.FindStringSubmatch(m)
		if harmlessKey(sm[2]) || sm[5] == Redacted {
			return m
		}
		v := Redacted
		switch sm[5][0] {
		case '"':
			v = `"` + Redacted + `"`
		case '\'':
			v = `'` + Redacted + `'`
		}
		return sm[1] + sm[2] + sm[3] + sm[4] + v
	})
	s = flagRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := flagRe.FindStringSubmatch(m)
		if harmlessKey(strings.TrimLeft(sm[2], "-")) || sm[4] == Redacted {
			return m
		}
		return sm[1] + sm[2] + sm[3] + Redacted
	})
	return s
}

// RedactArgs redacts a command line given as arguments: each argument on
// its own, and the argument after a secret-bearing flag (--api-key X) as a
// whole.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if i > 0 && isSecretFlag(args[i-1]) {
			out[i] = Redacted
			continue
		}
		out[i] = Redact(a)
	}
	return out
}

var secretFlagRe = regexp.MustCompile(`(?i)^--?[a-z0-9_-]*?` + secretName + `$`)

func isSecretFlag(a string) bool {
	return secretFlagRe.MatchString(a) && !harmlessKey(strings.TrimLeft(a, "-"))
}

var secretKeyRe = regexp.MustCompile(`(?i)^[a-z0-9_.-]*?(?:` + secretName[3:len(secretName)-1] + `|authorization|cookie)$`)

// RedactJSON redacts a JSON document structurally: the value of every key
// named like a secret (api_key, token, hf_token, password, secret,
// authorization, cookie, set-cookie, ...) becomes "[REDACTED]" whatever
// its type, and every other string goes through Redact. The result is
// re-encoded with sorted keys; a document that is not JSON is returned as
// Redact of its text, with the decoding error.
func RedactJSON(doc []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []byte(Redact(string(doc))), err
	}
	out, err := json.MarshalIndent(redactValue(v), "", "  ")
	if err != nil {
		return []byte(Redact(string(doc))), err
	}
	return append(out, '\n'), nil
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if secretKeyRe.MatchString(k) && !harmlessKey(k) {
				x[k] = Redacted
				continue
			}
			x[k] = redactValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = redactValue(e)
		}
		return x
	case string:
		return Redact(x)
	default:
		return v
	}
}

// maxLine bounds how much of a line a LineRedactor holds before it redacts
// and writes it anyway, so a process that never prints a newline cannot
// grow memory without bound.
const maxLine = 256 << 10

// LineRedactor is a writer that redacts whole lines: it holds a partial
// line until its newline arrives, so a secret split across two writes is
// still seen whole. Prefix, when set, is called for each line and its
// result written before it (a timestamp). Safe for concurrent use.
type LineRedactor struct {
	w      io.Writer
	prefix func() string
	mu     sync.Mutex
	buf    []byte
	err    error
}

// NewLineRedactor returns a LineRedactor writing to w. prefix may be nil.
func NewLineRedactor(w io.Writer, prefix func() string) *LineRedactor {
	return &LineRedactor{w: w, prefix: prefix}
}

// Write implements io.Writer. It reports the bytes consumed, not written.
func (r *LineRedactor) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return 0, r.err
	}
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			if len(r.buf) >= maxLine {
				r.emit(r.buf)
				r.buf = r.buf[:0]
			}
			break
		}
		r.emit(r.buf[:i])
		r.buf = r.buf[i+1:]
	}
	if len(r.buf) == 0 {
		r.buf = nil
	}
	return len(p), r.err
}

func (r *LineRedactor) emit(line []byte) {
	if r.err != nil {
		return
	}
	s := Redact(strings.TrimSuffix(string(line), "\r"))
	if r.prefix != nil {
		s = r.prefix() + s
	}
	_, r.err = io.WriteString(r.w, s+"\n")
}

// Flush writes a pending partial line, as if it had ended.
func (r *LineRedactor) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) > 0 {
		r.emit(r.buf)
		r.buf = nil
	}
	return r.err
}
