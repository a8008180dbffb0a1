package session

// replay --launch: each target's server started the way the sealed run
// started it, from the bundle alone. run.json keeps each target's launch
// command as it was recorded, redacted: a secret value in it (HF_TOKEN=...,
// --api-key ..., an hf_ or sk- token) reads [REDACTED], and the replay
// cannot start the server until the user gives it again.

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/fingerprint"
)

// ReplayLaunch is how a replay starts its targets' servers.
type ReplayLaunch struct {
	Only []string // the replayed targets (nil: all)
	// Commands start a target with another command than the sealed one
	// (recorded in Origin.Overrides, redacted).
	Commands map[string]string
	// Values fill the sealed commands' [REDACTED] values, by the name they
	// follow (HF_TOKEN for HF_TOKEN=[REDACTED], api-key for
	// --api-key [REDACTED]); never recorded.
	Values map[string]string
	URLs   map[string]string // the replay's URL overrides (ReplayOptions.URLs)
}

// RedactedSlot is a value of a sealed launch command that was redacted
// when sealed. Key is the name it follows, "" when it follows none (a
// token redacted by its shape).
type RedactedSlot struct{ Target, Key string }

// LaunchError is why the sealed launch commands cannot be started as
// they are. Each field lists what is wrong; at least one is set.
type LaunchError struct {
	NoCommand []string       // targets the sealed run recorded no launch command for
	Redacted  []RedactedSlot // redacted values no Values entry gives
	Unused    []string       // Values keys no sealed command has a redacted value for
	// PortMoved: targets whose URL moved to another port than the one
	// their sealed command listens on, as "target: sealed port P, URL U".
	PortMoved []string
}

func (e *LaunchError) Error() string {
	var parts []string
	if len(e.NoCommand) > 0 {
		parts = append(parts, "the sealed run recorded no launch command for "+strings.Join(e.NoCommand, ", "))
	}
	if len(e.Redacted) > 0 {
		var ws []string
		for _, s := range e.Redacted {
			k := s.Key
			if k == "" {
				k = "a value that follows no name"
			}
			ws = append(ws, s.Target+": "+k)
		}
		parts = append(parts, "launch command values redacted when sealed: "+strings.Join(ws, ", "))
	}
	if len(e.Unused) > 0 {
		parts = append(parts, "no launched command has a redacted value named "+strings.Join(e.Unused, ", "))
	}
	if len(e.PortMoved) > 0 {
		parts = append(parts, "the URL moved away from the port the sealed launch command uses: "+strings.Join(e.PortMoved, "; "))
	}
	return strings.Join(parts, "; ")
}

// slotRe finds a redacted value and the name it follows: a flag
// (--api-key [REDACTED], --api-key=[REDACTED]) or a key (HF_TOKEN=[REDACTED],
// api_key: "[REDACTED]"), as fingerprint's patterns redact them.
var slotRe = regexp.MustCompile(`(?:(--?[A-Za-z0-9_.-]+)(?:\s+|=)|([A-Za-z0-9_.-]+)["']?\s*[:=]\s*)?(["']?)` + regexp.QuoteMeta(fingerprint.Redacted))

// slotKey is how a redacted value is named: the flag without its dashes
// or the key; --env keys are compared the same way.
func slotKey(name string) string { return strings.TrimLeft(name, "-") }

// LaunchCommands returns the command that starts each replayed target:
// the sealed one (run.json's launch_command) with every [REDACTED] value
// given in l.Values, or l.Commands'. Values given are held by fingerprint's
// redactor (AddSecrets) before anything runs, so none reaches the replay's
// run directory; the keys of those too short to be scrubbed by value are
// returned for the caller to warn about. Every override and value given is
// recorded in Origin.Overrides (values never). A *LaunchError lists all
// that stands in the way.
func (s *Sealed) LaunchCommands(l ReplayLaunch) (map[string]string, []string, error) {
	cmds := map[string]string{}
	le := &LaunchError{}
	used := map[string]bool{}
	written := map[string][]string{} // each value as it was written into a command (quoted)
	var overrides []string
	for _, t := range s.Run.Targets {
		if len(l.Only) > 0 && !slices.Contains(l.Only, t.Name) {
			continue
		}
		if c, ok := l.Commands[t.Name]; ok {
			cmds[t.Name] = c
			if s.launchOverridden == nil {
				s.launchOverridden = map[string]bool{}
			}
			s.launchOverridden[t.Name] = true
			overrides = append(overrides, fmt.Sprintf("target %s launched with %s (sealed: %s)", t.Name, fingerprint.Redact(c), orNone(t.LaunchCommand)))
			continue
		}
		if t.LaunchCommand == "" {
			le.NoCommand = append(le.NoCommand, t.Name)
			continue
		}
		cmd := slotRe.ReplaceAllStringFunc(t.LaunchCommand, func(m string) string {
			sm := slotRe.FindStringSubmatch(m)
			key := slotKey(sm[1] + sm[2])
			v, ok := l.Values[key]
			if key == "" || !ok {
				le.Redacted = append(le.Redacted, RedactedSlot{Target: t.Name, Key: key})
				return m
			}
			used[key] = true
			q := quoteValue(v, sm[3])
			written[key] = append(written[key], q)
			return strings.TrimSuffix(m, fingerprint.Redacted) + q
		})
		if moved := portMoved(t.LaunchCommand, t.URL, l.URLs[t.Name]); moved != "" {
			le.PortMoved = append(le.PortMoved, t.Name+": "+moved)
		}
		cmds[t.Name] = cmd
	}
	for k := range l.Values {
		if !used[k] {
			le.Unused = append(le.Unused, k)
		}
	}
	sort.Strings(le.Unused)
	if len(le.NoCommand)+len(le.Redacted)+len(le.Unused)+len(le.PortMoved) > 0 {
		return nil, nil, le
	}
	var short []string
	keys := make([]string, 0, len(l.Values))
	for k := range l.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(fingerprint.AddSecrets(l.Values[k])) > 0 {
			short = append(short, k)
		}
		// Quoted, a value is no longer one run of its characters: held
		// as written too, it is scrubbed from the command whole.
		fingerprint.AddSecrets(written[k]...)
		overrides = append(overrides, fmt.Sprintf("launch value %s given (not recorded)", k))
	}
	s.Origin.Overrides = append(s.Origin.Overrides, overrides...)
	return cmds, short, nil
}

func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}

// quoteValue writes v for /bin/sh where a redacted value stood: inside the
// quotes that surrounded it, or single-quoted.
func quoteValue(v, quote string) string {
	switch quote {
	case "'":
		return strings.ReplaceAll(v, "'", `'\''`)
	case `"`:
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(v)
	}
	if plainWord.MatchString(v) {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// plainWord is a value /bin/sh reads as one word as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// portMoved says, when newURL moves a target to another port than the
// one its sealed command names (the sealed URL's port, as a word of the
// command), what moved; "" otherwise. The server would listen where the
// replay does not look.
func portMoved(command, sealedURL, newURL string) string {
	if newURL == "" {
		return ""
	}
	sp, np := urlPort(sealedURL), urlPort(newURL)
	if sp == "" || np == "" || sp == np {
		return ""
	}
	word := regexp.MustCompile(`(^|[^0-9])` + sp + `($|[^0-9])`)
	if !word.MatchString(command) || regexp.MustCompile(`(^|[^0-9])`+np+`($|[^0-9])`).MatchString(command) {
		return ""
	}
	return fmt.Sprintf("sealed port %s, URL %s", sp, fingerprint.Redact(newURL))
}

// urlPort is the port of a URL, its scheme's default when it names none.
func urlPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if p := u.Port(); p != "" {
		return p
	}
	switch u.Scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// PortInUseError is a server to launch whose URL's address already
// accepts connections: the server would not get the port, and its target
// would be measured against whatever answers there.
type PortInUseError struct {
	Target, Addr string
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("launch %s: %s (its URL's address) already accepts connections before %s is started: something else listens there", e.Target, e.Addr, e.Target)
}

// portInUse dials the host:port of target's URL; a connection made means
// something already listens there.
func portInUse(target, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	addr := net.JoinHostPort(u.Hostname(), urlPort(rawURL))
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil
	}
	c.Close()
	return &PortInUseError{Target: target, Addr: addr}
}
