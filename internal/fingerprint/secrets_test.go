package fingerprint

import (
	"bytes"
	"strings"
	"testing"
)

// A held value is scrubbed wherever it appears, in every form of it a
// writer may produce; a short one is returned instead of held.
func TestSecretSetScrubsByValue(t *testing.T) {
	var set secretSet
	const key = `SECRET"KEY/123xyz`
	if short := set.add(key, "  ", "abc1", "abc1"); len(short) != 1 || short[0] != "abc1" {
		t.Fatalf("add returned %q, want [abc1]", short)
	}
	for _, in := range []string{
		"WARNING: request from client with header x-api-key " + key + " rejected",
		`{"note": "SECRET\"KEY/123xyz"}`, // as JSON escapes it
		"GET /?k=SECRET%22KEY%2F123xyz",  // as a query escapes it
		"prefix" + key + key + "suffix",
	} {
		out := set.redact(in)
		if strings.Contains(out, "SECRET") || !strings.Contains(out, Redacted) {
			t.Errorf("redact(%q) = %q", in, out)
		}
	}
	if out := set.redact("abc1 is a short word"); out != "abc1 is a short word" {
		t.Errorf("a value under MinSecretLen scrubbed innocent text: %q", out)
	}
}

// AddSecrets reaches every writer built on Redact: LineRedactor (launch
// logs) and RedactJSON (run.json's form fields, probes).
func TestAddSecretsReachesWriters(t *testing.T) {
	const key = "heldvalue-7f3a9c"
	AddSecrets(key)
	var b bytes.Buffer
	lr := NewLineRedactor(&b, nil)
	lr.Write([]byte("INFO key is " + key[:5]))
	lr.Write([]byte(key[5:] + "\n"))
	lr.Flush()
	j, _ := RedactJSON([]byte(`{"prompt": "` + key + `"}`))
	for _, out := range []string{b.String(), string(j), ScrubSecrets("transcript " + key)} {
		if strings.Contains(out, key) {
			t.Errorf("held value survived: %q", out)
		}
	}
}

// A planted held value never survives redaction, whatever surrounds it and
// whatever the value.
func FuzzRedactHeldValue(f *testing.F) {
	for _, s := range [][3]string{
		{"x-api-key ", "SECRETKEY123xyz", " rejected"},
		{"api_key: ", "abcdefgh", ""},
		{"https://u:", "p4ssw0rd-long", "@host/"},
		{"]", "]abcdefg", "abcdefg"},
		{"ED][REDA", "ED][REDAC", "TED]"},
		{"", "[REDACTED]x", "[REDACTED]"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, pre, secret, post string) {
		var set secretSet
		if len(set.add(secret)) > 0 || strings.TrimSpace(secret) != secret || strings.Contains(Redacted, secret) {
			return // not held: too short, or nothing a marker could hide
		}
		for _, in := range []string{pre + secret + post, secret + pre + secret + post + secret} {
			if out := set.redact(in); strings.Contains(out, secret) {
				t.Fatalf("redact(%q) = %q still contains %q", in, out, secret)
			}
		}
	})
}
