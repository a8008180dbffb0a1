package fingerprint

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// MinSecretLen is the shortest value AddSecrets scrubs by value. A shorter
// one (an API key "test", a password "1234") occurs in innocent text (a
// transcript, a log line, a number in a /metrics scrape) often enough that
// replacing it everywhere would corrupt the evidence; such a value is hidden
// only where a pattern of Redact finds it (--api-key X, Bearer X, api_key:
// X, a URL's password), and AddSecrets returns it so the caller can say so.
const MinSecretLen = 8

// secretSet is a set of secret values, scrubbed longest first so that a
// value containing another is replaced whole.
type secretSet struct {
	mu   sync.RWMutex
	vals []string
}

// secrets holds the values of this process: once a value is known to be
// secret, nothing the process writes afterwards may contain it, whichever
// run it writes. Hiding too much is the safe side.
var secrets secretSet

// AddSecrets registers values that Redact (and so LineRedactor,
// RedactJSON, RedactArgs, probes, /metrics scrapes and launch logs)
// scrubs wherever they appear in every text this process writes from now
// on. Each value is also scrubbed as JSON escapes it and as a URL query
// escapes it, and each of its lines on its own. Values shorter than
// MinSecretLen, after trimming spaces, are not registered: they are
// returned (distinct, in order) so the caller can warn that they are
// hidden only where a pattern finds them. Empty values are ignored.
func AddSecrets(vals ...string) (tooShort []string) {
	return secrets.add(vals...)
}

// ScrubSecrets replaces every registered value in s with Redacted. Unlike
// Redact it applies no pattern, so it suits text that must otherwise stay
// as it was (a transcript).
func ScrubSecrets(s string) string { return secrets.scrub(s) }

func (set *secretSet) add(vals ...string) (tooShort []string) {
	var forms []string
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if len(v) < MinSecretLen {
			if !slices.Contains(tooShort, v) {
				tooShort = append(tooShort, v)
			}
			continue
		}
		forms = append(forms, v)
		for line := range strings.Lines(v) {
			forms = append(forms, strings.TrimSpace(line))
		}
		if b, err := json.Marshal(v); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		forms = append(forms, url.QueryEscape(v), url.PathEscape(v))
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	for _, f := range forms {
		// A part of the marker itself ("REDACTED") would rewrite every
		// redaction forever; the marker hides nothing anyway.
		if len(f) < MinSecretLen || strings.Contains(Redacted, f) || slices.Contains(set.vals, f) {
			continue
		}
		set.vals = append(set.vals, f)
	}
	slices.SortStableFunc(set.vals, func(a, b string) int { return len(b) - len(a) })
	return tooShort
}

func (set *secretSet) scrub(s string) string {
	set.mu.RLock()
	defer set.mu.RUnlock()
	// Replacing one value can join the text around it into another (or
	// into the same value again, when it overlaps the marker): repeat
	// until none is left. Values that keep re-forming (contrived ones made
	// of the marker's own characters) hide the whole text: a secret never
	// survives.
	for range maxScrubRounds {
		changed := false
		for _, v := range set.vals {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Redacted)
				changed = true
			}
		}
		if !changed {
			return s
		}
	}
	return Redacted
}

// maxScrubRounds bounds the rounds of scrub; real keys need one.
const maxScrubRounds = 8

// SecretName reports whether a field, header or variable named name holds
// a secret (api_key, token, password, authorization, ...), as RedactJSON
// judges keys.
func SecretName(name string) bool {
	return secretKeyRe.MatchString(name) && !harmlessKey(name)
}

// URLSecrets returns the secrets of a URL's userinfo: the password of
// user:password@, or the user alone (https://TOKEN@host), which is most
// often a token.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	if pw, ok := u.User.Password(); ok {
		return []string{pw}
	}
	return []string{u.User.Username()}
}

// CommandSecrets returns the values a command line gives to secret-named
// flags and variables (--api-key X, --api-key=X, HF_TOKEN=X): the values
// Redact hides there by pattern, so they can be scrubbed wherever else
// they appear (a server that logs its own key).
func CommandSecrets(cmd string) []string {
	var out []string
	unquote := func(v string) string {
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			return v[1 : len(v)-1]
		}
		return v
	}
	for _, sm := range kvRe.FindAllStringSubmatch(cmd, -1) {
		if !harmlessKey(sm[2]) && sm[5] != Redacted {
			out = append(out, unquote(sm[5]))
		}
	}
	for _, sm := range flagRe.FindAllStringSubmatch(cmd, -1) {
		if !harmlessKey(strings.TrimLeft(sm[2], "-")) && sm[4] != Redacted {
			out = append(out, unquote(sm[4]))
		}
	}
	return out
}
