package report

import (
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/verify"
)

// evidence says what is sealed, how to check it with benchseal (stock
// cosign's recipe is docs/verify.md's), and what the evidence can and
// cannot show.
func (v *view) evidence() []block {
	in := v.in
	out := []block{heading{2, v.tr("Evidence")}}
	name := in.BundleName
	if name == "" {
		name = "evidence.tar.zst"
	}
	key := "KEY.pub"
	if in.KeyEphemeral {
		key = "benchseal.pub"
	}
	// The bundle and its signer in one paragraph; what a fingerprint is
	// and how to check one file with stock cosign are docs/bundle.md's
	// and docs/verify.md's.
	signer := func(s []span, lead string) []span {
		s = append(s, t(lead), c(in.KeyFingerprint), t("."))
		if in.KeyEphemeral {
			s = append(s, t(" "), b(v.tr("The key was ephemeral:")), t(" "+v.tr("its public half ships in the bundle; pin it only by this fingerprint, given by the publisher through a channel you trust.")))
		}
		return s
	}
	if in.BundleSHA256 != "" {
		s := []span{t(v.tr("The evidence bundle ")), c(name), t(v.tr(", SHA-256 ")), c(in.BundleSHA256)}
		if in.KeyFingerprint != "" {
			s = signer(s, v.tr(", signed by the key "))
		} else {
			s = append(s, t("."))
		}
		out = append(out, para{spans: s, warn: in.KeyEphemeral && in.KeyFingerprint != ""})
	} else {
		out = append(out, para{warn: true, spans: []span{
			b(v.tr("This report was made from a run directory, not a sealed bundle.")),
			t(" " + v.tr("Seal it before publishing (")), c("benchseal seal RUNDIR -o evidence.tar.zst --key KEY"),
			t(v.tr(") and publish the bundle, its SHA-256 and the public key.")),
		}})
		if in.KeyFingerprint != "" {
			out = append(out, para{spans: signer(nil, v.tr("Signed by the key ")), warn: in.KeyEphemeral})
		}
	}
	check := "benchseal verify " + name + " --key " + key
	if in.KeyEphemeral {
		// The key ships inside: verify uses it (and says the signer is
		// unpinned).
		check = "benchseal verify " + name
	}
	out = append(out, codeBlock{"sha256sum " + name + "\n" + check})
	fresh := v.tr("every request's %s new to the servers, ", v.word(v.tw.Fresh))
	switch n := v.noInputItems(); {
	case !in.Run.Protocol.Perturb || n == len(in.Run.Corpus):
		fresh = ""
	case n > 0: // named voices were sent unchanged
		fresh = v.tr("every reference clip sent new to the servers, ")
	}
	// What the bundle holds is docs/bundle.md's; what it shows is said
	// here, once.
	out = append(out, para{spans: []span{b(v.tr("What it shows, and what it cannot:")), t(" " + v.tr("its files unchanged since sealing, every number following from the records, %sthe protocol run as declared; not that the records crossed the wire (the key holder could fabricate a consistent run, caught only where the servers' metrics and logs disagree), nor other hardware, settings, audio or times. Files: benchseal's docs/bundle.md; stock cosign: docs/verify.md.", fresh))}})
	if w := v.tw; w.Unshown != nil {
		what := v.word(w.Unshown)
		if in.Run.Protocol.RoundTrip != nil && w.UnshownHeard != nil {
			what = v.word(w.UnshownHeard)
		}
		out = append(out, para{spans: []span{b(v.tr("What a %s bundle cannot show:", task.NameOf(&in.Run))), t(" " + what)}})
	}
	out = append(out, v.stagesNotObserved()...)
	out = append(out, v.trustedTime()...)
	if r := in.Verify; r != nil {
		// Passed checks in one line; the others with what verify said.
		var passed, said []string
		var lines []string
		for _, c := range r.Checks {
			if c.Status == verify.Pass {
				passed = append(passed, strconv.Itoa(c.ID)+" "+c.Name)
				continue
			}
			// Said above: the fairness warnings (the fairness line and
			// the caveats).
			// So is an unpinned signature where the key paragraph names
			// the ephemeral key.
			if (c.ID == verify.CheckFairness || (c.ID == verify.CheckSignature && in.KeyEphemeral && in.KeyFingerprint != "")) && c.Status == verify.Warn {
				said = append(said, c.Status.String()+" "+strconv.Itoa(c.ID)+" "+c.Name)
				continue
			}
			lines = append(lines, c.Status.String()+" "+strconv.Itoa(c.ID)+". "+c.Name+": "+c.Summary)
		}
		if len(passed) > 0 {
			lines = append([]string{verify.Pass.String() + " " + strings.Join(passed, ", ")}, lines...)
		}
		if len(said) > 0 {
			lines = append(lines, strings.Join(said, ", ")+v.tr(": said above"))
		}
		out = append(out, para{spans: []span{t(v.tr("benchseal verify said:"))}}, codeBlock{strings.Join(lines, "\n")})
	}
	tool := in.Run.Tool
	s := []span{t(v.tr("Measured by ")), c(orDash(tool.Name) + " " + orDash(tool.Version))}
	if tool.GoVersion != "" {
		s = append(s, t(v.tr(" built with %s", tool.GoVersion)))
	}
	if tool.BinarySHA256 != "" {
		s = append(s, t(v.tr(", binary SHA-256 ")), c(tool.BinarySHA256))
	} else {
		s = append(s, t(v.tr(", binary SHA-256 not recorded")))
	}
	s = append(s, t("."))
	out = append(out, para{spans: s})
	return out
}

// trustedTime says what a pre-registered run's time-stamps establish, as
// verify's check 11 found them, and what they cannot.
func (v *view) trustedTime() []block {
	r := v.in.Verify
	if r == nil {
		return nil
	}
	for _, c := range r.Checks {
		if c.Name != "timestamp" || c.Status == verify.Skip {
			continue
		}
		if c.Status == verify.Fail || c.Status == verify.Unchecked {
			return []block{para{warn: true, spans: []span{b(v.tr("Time-stamps:")), t(" " + v.tr("the run was time-stamped, but its time-stamps do not hold (check %d): do not rely on when it says it was planned or sealed.", c.ID))}}}
		}
		unpinned := ""
		if c.Status == verify.Warn {
			unpinned = " " + v.tr("The authority (or the log) was not pinned: checked against the certificates the bundle carries, which proves them intact, not who issued them.")
		}
		// Check 11's summary once: here when it passed, in the checklist
		// below otherwise.
		when := ""
		if c.Status == verify.Pass {
			when = " " + c.Summary + "."
		}
		return []block{para{warn: unpinned != "", spans: []span{b(v.tr("Time-stamps:")), t(when + unpinned + " " + v.tr("So the plan (protocol, seed, clips, targets, key) preceded every result and the bundle was not assembled later; not that no other run was pre-registered."))}}}
	}
	return nil
}
