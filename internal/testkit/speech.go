package testkit

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Real speech servers on loopback for end-to-end tests: a synthesiser
// (espeak-ng) behind /v1/audio/speech and a recogniser (CMU PocketSphinx)
// behind /v1/audio/transcriptions, both Debian packages (.ci/run installs
// them). NeedSpeechTools skips a test where one is missing.

// SphinxModel is Debian's pocketsphinx-en-us model.
const SphinxModel = "/usr/share/pocketsphinx/model/en-us"

// NeedSpeechTools skips t unless every tool is on PATH and, when
// pocketsphinx_continuous is one of them, its model is installed.
func NeedSpeechTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (.ci/run installs it)", tool)
		}
		if tool == "pocketsphinx_continuous" {
			if _, err := os.Stat(SphinxModel); err != nil {
				t.Skip("pocketsphinx-en-us model not installed (.ci/run installs it)")
			}
		}
	}
}

// EspeakServer is a /v1/audio/speech server whose voice is espeak-ng: it
// reads the JSON body, refuses a ref_audio that is not a data: URL of a
// WAV (as vLLM-Omni refuses one that is not a URL), and answers
// espeak-ng's WAV (22,050 Hz) of "input". espeak-ng cannot clone a
// voice: the reference is checked, then ignored.
func EspeakServer(t testing.TB) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"espeak-ng","object":"model"}]}`)
			return
		case "/v1/audio/speech":
		default:
			http.NotFound(w, r)
			return
		}
		var req struct {
			Input    string `json:"input"`
			RefAudio string `json:"ref_audio"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b64, ok := strings.CutPrefix(req.RefAudio, "data:audio/wav;base64,")
		ref, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || !bytes.HasPrefix(ref, []byte("RIFF")) {
			http.Error(w, "ref_audio must be a data:audio/wav;base64, URL of a WAV", 400)
			return
		}
		out, err := exec.CommandContext(r.Context(), "espeak-ng", "--stdout", "-v", "en", req.Input).Output()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Write(out)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// Transcribe is what PocketSphinx hears in a 16 kHz 16-bit mono WAV.
func Transcribe(wavPath string) (string, error) {
	cmd := exec.Command("pocketsphinx_continuous", "-infile", wavPath,
		"-hmm", SphinxModel+"/en-us", "-lm", SphinxModel+"/en-us.lm.bin", "-dict", SphinxModel+"/cmudict-en-us.dict")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("pocketsphinx: %v: %s", err, lastLines(errb.String(), 3))
	}
	return strings.TrimSpace(out.String()), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// SphinxServer is an OpenAI-compatible transcription server backed by
// PocketSphinx: each request's WAV goes to a temp file and through the
// recogniser; a WAV at another rate than 16 kHz is first made 16 kHz
// 16-bit mono with sox (no dither), as PocketSphinx's model needs.
func SphinxServer(t testing.TB) *httptest.Server {
	tmp := t.TempDir()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"pocketsphinx-en-us","object":"model"}]}`)
	})
	mux.HandleFunc("POST /v1/audio/transcriptions", func(w http.ResponseWriter, r *http.Request) {
		f, _, err := r.FormFile("file")
		if err != nil {
			http.Error(w, `{"error":{"message":"no file"}}`, http.StatusBadRequest)
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text, err := transcribeBytes(tmp, b)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"text": text})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func transcribeBytes(tmp string, wav []byte) (string, error) {
	tf, err := os.CreateTemp(tmp, "req-*.wav")
	if err != nil {
		return "", err
	}
	defer os.Remove(tf.Name())
	_, err = tf.Write(wav)
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	path := tf.Name()
	if len(wav) >= 28 && binary.LittleEndian.Uint32(wav[24:]) != 16000 {
		path = filepath.Join(tmp, filepath.Base(tf.Name())+"-16k.wav")
		defer os.Remove(path)
		if out, err := exec.Command("sox", "-D", tf.Name(), "-r", "16000", "-b", "16", "-c", "1", path).CombinedOutput(); err != nil {
			return "", fmt.Errorf("sox: %v: %s", err, out)
		}
	}
	return Transcribe(path)
}
