package verify_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

var tmpRoot string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "verify-test-")
	if err != nil {
		panic(err)
	}
	tmpRoot = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// fixture is a real run made once per test binary and shared read-only.
type fixture struct {
	once           sync.Once
	spec           runSpec
	corpus, runDir string
}

func (f *fixture) get(tb testing.TB) (corpus, runDir string) {
	f.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "run-")
		must(tb, err)
		f.corpus, f.runDir = filepath.Join(base, "corpus"), filepath.Join(base, "run")
		must(tb, os.Mkdir(f.corpus, 0o755))
		makeRun(tb, f.spec, f.corpus, f.runDir)
	})
	if f.runDir == "" || !exists(filepath.Join(f.runDir, "claims.json")) {
		tb.Fatal("fixture run failed to build")
	}
	return f.corpus, f.runDir
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

var (
	good      = &fixture{spec: smallRun}
	unperturb = &fixture{spec: func() runSpec { s := smallRun; s.NoPerturb = true; return s }()}
)

// damagedRun copies the good run and applies damage to the copy.
func damagedRun(t testing.TB, damage func(dir string)) string {
	_, src := good.get(t)
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, src, dir)
	if damage != nil {
		damage(dir)
	}
	return dir
}

func firstRecords(dir string) string { return filepath.Join(dir, "records", "a", "c3-r1.jsonl") }

func setField(tb testing.TB, line []byte, key string, v any) []byte {
	var m map[string]any
	must(tb, json.Unmarshal(line, &m))
	m[key] = v
	b, err := json.Marshal(m)
	must(tb, err)
	return b
}

// vector is one bundle made on purpose, with the verdict it must get.
type vector struct {
	name   string
	expect string // what the vector shows, for the reader of a failure
	make   func(t testing.TB) ([]byte, verify.Options)
	fail   []int // checks that must FAIL
	warn   []int // checks that must WARN
	pass   []int // checks that must PASS
	// unchecked are checks that must be UNCHECKED (they could not run):
	// not failures, yet the report is not OK.
	unchecked []int
	// finding is a check whose findings must include one whose reason
	// contains the text (and whose Err, when errAs is set, matches it).
	finding     int
	text        string
	errAs       func(error) bool
	notRunAfter bool // checks 2-8 SKIP "not run"
}

func sealed(dir func(t testing.TB) string, opts bundle.SealOptions, verifyWith string) func(t testing.TB) ([]byte, verify.Options) {
	return func(t testing.TB) ([]byte, verify.Options) {
		s := testSigner(t)
		b := seal(t, dir(t), s, opts)
		switch verifyWith {
		case "pinned":
			return b, verify.Options{PublicKey: s.PublicKey()}
		case "other":
			return b, verify.Options{PublicKey: testSigner(t).PublicKey()}
		}
		return b, verify.Options{}
	}
}

func goodDir(t testing.TB) string { return damagedRun(t, nil) }

func isDigestError(name string) func(error) bool {
	return func(err error) bool {
		var de *bundle.DigestError
		return errors.As(err, &de) && de.Name == name
	}
}

func vectors() []vector {
	return []vector{
		{name: "good", expect: "every check passes but fairness (no GPU or server capture in a sim run)",
			make: sealed(goodDir, bundle.SealOptions{}, "pinned"),
			pass: []int{1, 2, 3, 4, 5, 6, 7}, warn: []int{8}},
		{name: "embedded-key", expect: "signature valid with the bundle's own key: WARN unpinned",
			make: func(t testing.TB) ([]byte, verify.Options) {
				s, err := bundle.NewEphemeralSigner()
				must(t, err)
				return seal(t, goodDir(t), s, bundle.SealOptions{}), verify.Options{}
			},
			warn: []int{2}, pass: []int{1, 3, 4, 5, 6, 7}, finding: 2, text: "signer unpinned"},
		{name: "no-key", expect: "no key given and none embedded: signature UNCHECKED (not FAIL: nothing was found false), it needs the sealer's public key, and the bundle does not verify",
			make:      sealed(goodDir, bundle.SealOptions{}, "none"),
			unchecked: []int{2}, pass: []int{3, 5, 6, 7}, finding: 2, text: "not checked: this bundle needs its sealer's public key",
			errAs: func(err error) bool { return errors.Is(err, verify.ErrNeedKey) }},
		{name: "wrong-key", expect: "signature FAIL for another key",
			make: sealed(goodDir, bundle.SealOptions{}, "other"),
			fail: []int{2}, pass: []int{1, 3, 5, 6, 7},
			errAs: func(err error) bool {
				return errors.Is(err, bundle.ErrBadSignature) && errors.Is(err, verify.ErrOtherKey)
			},
			finding: 2, text: "signed by a different key (sha256:"},
		{name: "record-edited", expect: "a record changed after sealing: digest mismatch",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return repack(t, b, func(name string, d []byte) []byte {
					if name == "records/a/c3-r1.jsonl" {
						return bytes.Replace(d, []byte(`"ok":true`), []byte(`"ok":false`), 1)
					}
					return d
				}), o
			},
			fail: []int{3}, pass: []int{1, 2}, finding: 3, text: "statement says", errAs: isDigestError("records/a/c3-r1.jsonl")},
		{name: "extra-file", expect: "a file not in the statement",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return repack(t, b, nil, &tar.Header{Typeflag: tar.TypeReg, Name: "zz-extra.txt"}), o
			},
			fail: []int{3}, pass: []int{1, 2, 5, 6, 7}, finding: 3, text: "not a subject", errAs: isDigestError("zz-extra.txt")},
		{name: "input-sha-resealed", expect: "an input_sha256 edited and re-sealed: the variant does not re-derive",
			make: sealed(func(t testing.TB) string {
				return damagedRun(t, func(dir string) {
					editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
						if i == 4 {
							return setField(t, l, "input_sha256", strings.Repeat("ab", 32))
						}
						return l
					})
				})
			}, bundle.SealOptions{}, "pinned"),
			fail: []int{5}, pass: []int{1, 2, 3, 4, 6, 7}, finding: 5, text: "input_sha256",
			errAs: func(err error) bool {
				var ve *verify.VariantError
				return errors.As(err, &ve) && ve.Path == "records/a/c3-r1.jsonl" && ve.Line == 5 && ve.What == "input_sha256"
			}},
		{name: "sample-index-resealed", expect: "a sample_index that is not the seeded plan's",
			make: sealed(func(t testing.TB) string {
				return damagedRun(t, func(dir string) {
					editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
						if i == 0 {
							return setField(t, l, "sample_index", 5)
						}
						return l
					})
				})
			}, bundle.SealOptions{}, "pinned"),
			fail: []int{5}, finding: 5, text: "not the seeded plan's"},
		{name: "shared-hash-resealed", expect: "two records with one input hash",
			make: sealed(func(t testing.TB) string {
				return damagedRun(t, func(dir string) {
					var first string
					editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
						var r schemas.Record
						must(t, json.Unmarshal(l, &r))
						if i == 0 {
							first = r.InputSHA256
							return l
						}
						if i == 1 {
							return setField(t, l, "input_sha256", first)
						}
						return l
					})
				})
			}, bundle.SealOptions{}, "pinned"),
			fail: []int{5}, pass: []int{3, 6, 7}, finding: 5, text: "two requests sent the same bytes"},
		{name: "claims-edited-resealed", expect: "a claims.json number edited and re-sealed",
			make: sealed(func(t testing.TB) string {
				return damagedRun(t, func(dir string) {
					p := filepath.Join(dir, "claims.json")
					var c schemas.Claims
					b, _ := os.ReadFile(p)
					must(t, json.Unmarshal(b, &c))
					c.Targets[1].Levels[1].Repeats[1].ReqPerS *= 1.5
					nb, _ := json.MarshalIndent(c, "", "  ")
					must(t, os.WriteFile(p, nb, 0o644))
				})
			}, bundle.SealOptions{}, "pinned"),
			fail: []int{6}, pass: []int{1, 2, 3, 4, 5, 7}, finding: 6, text: "req_per_s",
			errAs: func(err error) bool {
				var ce *verify.ClaimError
				return errors.As(err, &ce) && ce.Doc == "claims.json" && ce.Field == "targets[b].levels[c=3].repeats[r=2].req_per_s"
			}},
		{name: "record-deleted-resealed", expect: "a measured record deleted and re-sealed: counts fall short",
			make: sealed(func(t testing.TB) string {
				return damagedRun(t, func(dir string) {
					editLines(t, firstRecords(dir), func(i int, l []byte) []byte {
						if i == 5 {
							return nil
						}
						return l
					})
				})
			}, bundle.SealOptions{}, "pinned"),
			fail: []int{6, 7}, pass: []int{1, 2, 3, 4, 5}, finding: 7, text: "measured requests, the protocol says 4"},
		{name: "no-perturb", expect: "a run without perturbation: loud WARN",
			make: sealed(func(t testing.TB) string { _, d := unperturb.get(t); return d }, bundle.SealOptions{}, "pinned"),
			warn: []int{5, 8}, pass: []int{1, 2, 3, 4, 6, 7}, finding: 5, text: "PERTURBATION WAS OFF"},
		{name: "no-audio", expect: "sealed with --no-audio: variants and clip lengths not checked against audio, WARN",
			make: sealed(goodDir, bundle.SealOptions{NoAudio: true}, "pinned"),
			warn: []int{5}, pass: []int{1, 2, 3, 4, 6, 7}, finding: 5,
			text: "audio not included: variants of 2 clips not re-derived and their lengths (seconds, sample rate, frames) unverified, so RTFx rests on run.json alone"},
		{name: "no-audio-with-audio-dir", expect: "--no-audio, clips given back with --audio: PASS",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{NoAudio: true}, "pinned")(t)
				o.AudioDir, _ = good.get(t)
				return b, o
			},
			pass: []int{1, 2, 3, 4, 5, 6, 7}},
		{name: "symlink", expect: "a symbolic link in the archive: unsafe",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return repack(t, b, nil, &tar.Header{Typeflag: tar.TypeSymlink, Name: "zz", Linkname: "/etc/passwd"}), o
			},
			fail: []int{1}, notRunAfter: true, finding: 1, text: "not a regular file",
			errAs: func(err error) bool { return errors.Is(err, bundle.ErrNotRegular) }},
		{name: "dotdot", expect: "a path escaping the archive: unsafe",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return repack(t, b, nil, &tar.Header{Typeflag: tar.TypeReg, Name: "../evil"}), o
			},
			fail: []int{1}, notRunAfter: true, finding: 1, text: "not a local",
			errAs: func(err error) bool { return errors.Is(err, bundle.ErrUnsafePath) }},
		{name: "duplicate", expect: "a name twice: unsafe",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return repack(t, b, nil, &tar.Header{Typeflag: tar.TypeReg, Name: "run.json"}), o
			},
			fail: []int{1}, notRunAfter: true, finding: 1, text: "duplicate",
			errAs: func(err error) bool { return errors.Is(err, bundle.ErrDuplicate) }},
		{name: "truncated", expect: "a bundle cut short: unsafe",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				return b[:len(b)*2/3], o
			},
			fail: []int{1}, notRunAfter: true, finding: 1},
		{name: "not-zstd", expect: "not a bundle at all: corrupt",
			make: func(t testing.TB) ([]byte, verify.Options) {
				return []byte("RIFF this is a WAV, not a bundle"), verify.Options{}
			},
			fail: []int{1}, notRunAfter: true, finding: 1,
			errAs: func(err error) bool { return errors.Is(err, bundle.ErrCorrupt) }},
	}
}

func TestVectors(t *testing.T) {
	for _, v := range append(vectors(), protocolVectors()...) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			b, opts := v.make(t)
			rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), opts)
			if err != nil {
				t.Fatalf("expect: %s; Bundle: %v", v.expect, err)
			}
			dump := func() string { var s strings.Builder; json.NewEncoder(&s).Encode(rep); return s.String() }
			if len(rep.Checks) != len(verify.Checklist()) {
				t.Fatalf("%d checks", len(rep.Checks))
			}
			for _, want := range []struct {
				ids []int
				s   verify.Status
			}{{v.fail, verify.Fail}, {v.warn, verify.Warn}, {v.pass, verify.Pass}, {v.unchecked, verify.Unchecked}} {
				for _, id := range want.ids {
					if got := rep.Check(id).Status; got != want.s && (want.s != verify.Pass || !passes(*rep.Check(id))) {
						t.Errorf("expect: %s; check %d is %s, want %s\n%s", v.expect, id, got, want.s, dump())
					}
				}
			}
			if rep.OK() != (len(v.fail) == 0 && len(v.unchecked) == 0) {
				t.Errorf("OK() = %v with %d failing and %d unchecked checks", rep.OK(), rep.Failed, rep.Unchecked)
			}
			if v.notRunAfter {
				for _, c := range rep.Checks[1:] {
					if c.Status != verify.Skip || !strings.HasPrefix(c.Summary, "not run: the archive is ") || len(c.Findings) != 0 {
						t.Errorf("check %d after a refused archive: %s %q %v, want SKIP not run, no findings", c.ID, c.Status, c.Summary, c.Findings)
					}
				}
				if rep.Failed != 1 {
					t.Errorf("%d checks fail after a refused archive, want 1 (the archive)", rep.Failed)
				}
			}
			if v.finding != 0 {
				found := false
				for _, f := range rep.Check(v.finding).Findings {
					if strings.Contains(f.Reason, v.text) && (v.errAs == nil || v.errAs(f.Err)) {
						found = true
					}
				}
				if !found {
					t.Errorf("expect: %s; no finding of check %d with %q (and the right error)\n%s", v.expect, v.finding, v.text, dump())
				}
			}
		})
	}
}

func TestDir(t *testing.T) {
	_, dir := good.get(t)
	rep, err := verify.Dir(context.Background(), dir, verify.Options{})
	must(t, err)
	for id, want := range []verify.Status{verify.Skip, verify.Skip, verify.Skip, verify.Pass, verify.Pass, verify.Pass, verify.Pass, verify.Warn, verify.Skip, verify.Skip, verify.Skip} {
		if got := rep.Check(id + 1).Status; got != want && (want != verify.Pass || !passes(*rep.Check(id + 1))) {
			t.Errorf("check %d: %s, want %s (%s)", id+1, got, want, rep.Check(id+1).Summary)
		}
	}
	if notSteady := !passes(*rep.Check(verify.CheckProtocol)) || rep.Check(verify.CheckProtocol).Status == verify.Warn; !rep.OK() || rep.Skipped != 6 || rep.Passed+rep.Warned != 5 || rep.Warned != 1 && !notSteady {
		t.Errorf("counts: %+v", rep)
	}
}
