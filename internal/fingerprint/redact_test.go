package fingerprint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const secret = "s3cr3tV4lu3abcdefghijklmnop"

var redactCases = []struct {
	name, in, want string
}{
	{"hf env", "HF_TOKEN=" + secret + " vllm serve m", "HF_TOKEN=[REDACTED] vllm serve m"},
	{"api key env quoted", `export OPENAI_API_KEY="` + secret + `"`, `export OPENAI_API_KEY="[REDACTED]"`},
	{"any token env", "MY_TOKEN='" + secret + "' x", "MY_TOKEN='[REDACTED]' x"},
	{"api-key flag", "vllm serve m --api-key " + secret + " --port 8000", "vllm serve m --api-key [REDACTED] --port 8000"},
	{"api-key flag eq", "--api-key=" + secret, "--api-key=[REDACTED]"},
	{"token flag", "x --token " + secret, "x --token [REDACTED]"},
	{"hf-token flag", "x --hf-token " + secret, "x --hf-token [REDACTED]"},
	{"auth header", "Authorization: Bearer " + secret, "Authorization: Bearer [REDACTED]"},
	{"curl header", `curl -H "Authorization: Bearer ` + secret + `" url`, `curl -H "Authorization: Bearer [REDACTED]" url`},
	{"auth json", `{"Authorization": "Basic ` + secret + `"}`, `{"Authorization": "Basic [REDACTED]"}`},
	{"bearer alone", "sent bearer " + secret, "sent bearer [REDACTED]"},
	{"json api_key", `{"api_key": "` + secret + `", "port": 8000}`, `{"api_key": "[REDACTED]", "port": 8000}`},
	{"json escaped", `{"api_key": "a\"` + secret + `"}`, `{"api_key": "[REDACTED]"}`},
	{"python repr list", `args: {'api_key': ['` + secret + `'], 'port': 8000}`, `args: {'api_key': [REDACTED], 'port': 8000}`},
	{"python repr str", `{'hf_token': '` + secret + `'}`, `{'hf_token': '[REDACTED]'}`},
	{"yaml", "api_key: " + secret + "\nport: 1", "api_key: [REDACTED]\nport: 1"},
	{"hf token bare", "using hf_" + secret, "using [REDACTED]"},
	{"sk token bare", "key sk-proj-" + secret + ".", "key [REDACTED]."},
	{"url password", "https://user:" + secret + "@example.com/x", "https://user:[REDACTED]@example.com/x"},
	{"url user only", "git clone https://" + secret + "@example.com/x", "git clone https://[REDACTED]@example.com/x"},
	{"url password with @", "https://user:p@" + secret + "@example.com/x", "https://user:[REDACTED]@example.com/x"},
	{"auth other scheme", `{"authorization": "ApiKey ` + secret + `"}`, `{"authorization": "ApiKey [REDACTED]"}`},
	{"auth aws", "Authorization: AWS4-HMAC-SHA256 Credential=AKIA/x, Signature=" + secret, "Authorization: [REDACTED]"},
	{"auth two words", `{"authorization":"x ` + secret + `"}`, `{"authorization":"[REDACTED]"}`},
	{"json api_keys", `{"api_keys": ["` + secret + `"], "port": 8000}`, `{"api_keys": [REDACTED], "port": 8000}`},
	{"json secret_key", `{"secret_key": "` + secret + `", "private_key": "` + secret + `"}`, `{"secret_key": "[REDACTED]", "private_key": "[REDACTED]"}`},
	{"passwords env", "DB_PASSWORDS=" + secret, "DB_PASSWORDS=[REDACTED]"},
	{"batched tokens kept", `{"max_num_batched_tokens": 8192}`, `{"max_num_batched_tokens": 8192}`},
	{"max tokens kept", "--max-tokens 256 max_tokens=5 --tokenizer Qwen/x", "--max-tokens 256 max_tokens=5 --tokenizer Qwen/x"},
	{"special tokens kept", `{"eos_token": "</s>", "pad_token": "<pad>"}`, `{"eos_token": "</s>", "pad_token": "<pad>"}`},
	{"short sk kept", "pip install sk-learn", "pip install sk-learn"},
	{"cookie header", "Cookie: sid=" + secret + "; theme=dark", "Cookie: [REDACTED]"},
	{"set-cookie header", "Set-Cookie: sid=" + secret + "; Path=/; HttpOnly", "Set-Cookie: [REDACTED]"},
	{"cookie json", `{"Cookie": "sid=` + secret + `", "x": 1}`, `{"Cookie": "[REDACTED]", "x": 1}`},
	{"auth json array", `{"Authorization": ["Bearer ` + secret + `"]}`, `{"Authorization": ["[REDACTED]"]}`},
	{"auth json array two", `{"Authorization": ["Bearer ` + secret + `", "Basic ` + secret + `"], "x": 1}`, `{"Authorization": ["[REDACTED]"], "x": 1}`},
	{"auth python list", `{'authorization': ['x ` + secret + `']}`, `{'authorization': ['[REDACTED]']}`},
	{"set-cookie json array", `{"Set-Cookie": ["sid=` + secret + `; Path=/"]}`, `{"Set-Cookie": ["[REDACTED]"]}`},
	{"plain", "INFO: Uvicorn running on http://0.0.0.0:8000", "INFO: Uvicorn running on http://0.0.0.0:8000"},
}

func TestRedact(t *testing.T) {
	for _, c := range redactCases {
		t.Run(c.name, func(t *testing.T) {
			got := Redact(c.in)
			if got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if strings.Contains(got, secret) {
				t.Errorf("secret survived: %q", got)
			}
			if again := Redact(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"benchseal", "run", "--api-key", secret, "--header", "Authorization: Bearer " + secret, "--launch", "a=HF_TOKEN=" + secret + " vllm serve"}
	got := RedactArgs(in)
	want := []string{"benchseal", "run", "--api-key", Redacted, "--header", "Authorization: Bearer [REDACTED]", "--launch", "a=HF_TOKEN=[REDACTED] vllm serve"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("RedactArgs = %q, want %q", got, want)
	}
}

func TestRedactJSON(t *testing.T) {
	in := `{"model": "m", "api_key": 12345, "server": {"api_keys": ["` + secret + `"], "secret_key": "` + secret + `"}, "nested": {"HF_TOKEN": ["a"], "cmd": "x --token ` + secret + `"}, "list": [{"password": {"a": 1}}], "max_tokens": 5}`
	out, err := RedactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if v["api_key"] != Redacted || v["nested"].(map[string]any)["HF_TOKEN"] != Redacted ||
		v["list"].([]any)[0].(map[string]any)["password"] != Redacted {
		t.Errorf("secret keys kept: %s", out)
	}
	if srv := v["server"].(map[string]any); srv["api_keys"] != Redacted || srv["secret_key"] != Redacted {
		t.Errorf("plural or secret_key kept: %s", out)
	}
	if v["nested"].(map[string]any)["cmd"] != "x --token [REDACTED]" || v["model"] != "m" || v["max_tokens"].(float64) != 5 {
		t.Errorf("wrong redaction: %s", out)
	}
	out, err = RedactJSON([]byte(`{"headers": {"Cookie": "sid=a", "Set-Cookie": ["sid=b"], "Accept": "*/*"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"Cookie": "[REDACTED]"`)) || !bytes.Contains(out, []byte(`"Set-Cookie": "[REDACTED]"`)) ||
		!bytes.Contains(out, []byte(`"Accept": "*/*"`)) {
		t.Errorf("cookies kept or Accept lost: %s", out)
	}
	if _, err := RedactJSON([]byte("api_key=" + secret)); err == nil {
		t.Error("non-JSON accepted")
	} else if got, _ := RedactJSON([]byte("api_key=" + secret)); bytes.Contains(got, []byte(secret)) {
		t.Error("non-JSON fallback kept the secret")
	}
}

func TestLineRedactorSplitWrites(t *testing.T) {
	var out bytes.Buffer
	r := NewLineRedactor(&out, func() string { return "T " })
	line := "starting with --api-key " + secret + " now\npartial hf_" + secret
	for i := range len(line) { // one byte at a time: a secret split across writes
		if _, err := r.Write([]byte{line[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "T starting with --api-key [REDACTED] now\nT partial [REDACTED]\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// plant builds a secret of at least 20 characters from fuzz bytes.
func plant(b []byte) string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var s strings.Builder
	s.WriteString("Zq")
	for _, c := range b {
		s.WriteByte(alpha[int(c)%len(alpha)])
	}
	for s.Len() < 20 {
		s.WriteByte('x')
	}
	return s.String()
}

func FuzzRedact(f *testing.F) {
	if len(redactCases) == 0 {
		f.Fatal("no seed vectors")
	}
	for _, c := range redactCases {
		f.Add(c.in, []byte("seedsecretvalue"), uint8(len(c.name)))
	}
	f.Add("", []byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, text string, sb []byte, form uint8) {
		s := plant(sb)
		forms := []string{
			"HF_TOKEN=" + s, "OPENAI_API_KEY=" + s, "--api-key " + s, "--api-key=" + s, "--token " + s,
			"Authorization: Bearer " + s, `{"api_key": "` + s + `"}`, "hf_" + s, "sk-" + s, `'hf_token': '` + s + `'`,
			"Cookie: sid=" + s, "Set-Cookie: a=" + s + "; Path=/", `"Authorization": ["Bearer ` + s + `"]`, `"Authorization": ["x", "` + s + `"]`,
		}
		in := text + " " + forms[int(form)%len(forms)] + " " + text
		out := Redact(in)
		if strings.Contains(out, s) {
			t.Fatalf("planted secret survived:\n in %q\nout %q", in, out)
		}
		if strings.Contains(text, s) {
			return
		}
		var buf bytes.Buffer
		lr := NewLineRedactor(&buf, nil)
		lr.Write([]byte(in))
		lr.Flush()
		if strings.Contains(buf.String(), s) {
			t.Fatalf("line redactor kept the secret: %q", buf.String())
		}
	})
}

// RedactMetrics hides what Redact hides in a /metrics answer, line by
// line: secrets in label values and HELP text, a registered secret
// anywhere; and on a whole exposition it gives what Redact gives.
func TestRedactMetrics(t *testing.T) {
	AddSecrets("registered-" + secret)
	scrape := `# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-ASR-1.7B"} 1234
# HELP leak_info curl -H "Authorization: Bearer ` + secret + `" http://x
leak_info{api_key="` + secret + `",hf="hf_` + secret + `",url="https://user:` + secret + `@host/"} 1
other{note="registered-` + secret + `"} 2
vllm:request_max_num_generation_tokens_bucket{engine="0",le="1.0"} 0
`
	got := RedactMetrics(scrape)
	if strings.Contains(got, secret) {
		t.Errorf("a secret left in:\n%s", got)
	}
	if got != Redact(scrape) {
		t.Errorf("RedactMetrics differs from Redact on an exposition:\n%s\nvs\n%s", got, Redact(scrape))
	}
	if !strings.Contains(got, `vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-ASR-1.7B"} 1234`) {
		t.Errorf("a metric line without a secret changed:\n%s", got)
	}
}
