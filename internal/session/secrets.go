package session

import (
	"sort"

	"github.com/benchseal/benchseal/internal/fingerprint"
)

// holdSecrets gives fingerprint's redactor every secret value the session
// holds, before anything is launched or written: the API key, the
// passwords (or lone users) of the targets' URLs, the values of
// secret-named form fields (api_key=...), and the values that launch
// commands give to secret-named flags and variables (--api-key X,
// HF_TOKEN=X). From then on they are scrubbed from every text written into
// the run directory: launch logs as they stream, copied logs and configs,
// probes, /metrics scrapes, run.json and the records. A value shorter than
// fingerprint.MinSecretLen is hidden only where a pattern finds it; the
// user is warned, by where the value came from, never by the value.
func holdSecrets(cfg Config) {
	short := map[string]bool{}
	hold := func(what string, vals ...string) {
		if len(fingerprint.AddSecrets(vals...)) > 0 {
			short[what] = true
		}
	}
	hold("the API key", cfg.APIKey)
	for _, t := range cfg.Plan.Targets {
		hold("the URL of target "+t.Name, fingerprint.URLSecrets(t.URL)...)
		for k, v := range t.Fields {
			if fingerprint.SecretName(k) {
				hold("form field "+k+" of target "+t.Name, v)
			}
		}
	}
	for _, cmds := range []map[string]string{cfg.Servers.Launch, cfg.Servers.LaunchCmd} {
		for name, cmd := range cmds {
			hold("a secret in the launch command of "+name, fingerprint.CommandSecrets(cmd)...)
		}
	}
	whats := make([]string, 0, len(short))
	for w := range short {
		whats = append(whats, w)
	}
	sort.Strings(whats)
	for _, w := range whats {
		cfg.Warnf("%s is shorter than %d characters: it is hidden where it follows its name (--api-key, Bearer, api_key:, a URL's password) but not scrubbed from other text, where it would hide innocent words", w, fingerprint.MinSecretLen)
	}
}
