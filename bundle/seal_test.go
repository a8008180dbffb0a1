package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
	"github.com/klauspost/compress/zstd"
)

func seal(t testing.TB, dir string, s *Signer, opts SealOptions) ([]byte, *SealResult) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Seal(context.Background(), &buf, dir, s, opts)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if hex.EncodeToString(sum[:]) != res.SHA256 || res.Size != int64(buf.Len()) {
		t.Fatalf("SealResult says %s/%d, bytes are %x/%d", res.SHA256, res.Size, sum, buf.Len())
	}
	return buf.Bytes(), res
}

func TestSealOpenVerify(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	s := testSigner(t)
	b, res := seal(t, dir, s, SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: "test"}})

	bd, err := Open(bytes.NewReader(b), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bd.Verify(s.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if err := bd.CheckSubjects(st); err != nil {
		t.Fatalf("CheckSubjects: %v", err)
	}
	var names []string
	for _, e := range bd.Entries {
		names = append(names, e.Name)
	}
	want := []string{AttestationName, "claims.json", "env/host.json"}
	if !slices.Equal(names[:3], want) || !sort.StringsAreSorted(names[1:]) || len(names) != 1+11 {
		t.Errorf("entries = %q", names)
	}
	if slices.Contains(names, PublicKeyName) {
		t.Error("a bundle sealed with a key carries benchseal.pub")
	}
	p := st.Predicate
	if p.Key.Fingerprint != s.Fingerprint() || p.Key.Ephemeral || res.Fingerprint != s.Fingerprint() {
		t.Errorf("key = %+v, want %s", p.Key, s.Fingerprint())
	}
	if !p.Run.Complete || p.Run.Seed != 42 || len(p.Run.Targets) != 2 || p.Run.Targets[1].URL != "http://127.0.0.1:8001" ||
		len(p.Claims) != 2 || p.Claims[0].Levels[1].Concurrency != 4 || p.Claims[0].Levels[0].ReqPerS != 4 ||
		*p.Claims[1].Levels[0].Quality != 0.05 || p.Files != 11 || p.Sealer.Version != "test" {
		t.Errorf("predicate = %+v", p)
	}
	payload, _ := marshalStatement(st)
	if err := schemas.Validate("predicate", mustPredicateJSON(t, payload)); err != nil {
		t.Errorf("predicate: %v", err)
	}

	// Every header has the one deterministic shape.
	zr, _ := zstd.NewReader(bytes.NewReader(b))
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Mode != 0o644 || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.Typeflag != tar.TypeReg ||
			!h.ModTime.Equal(time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)) || !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() {
			t.Errorf("header %+v", h)
		}
	}
}

func mustPredicateJSON(t *testing.T, statement []byte) []byte {
	t.Helper()
	i := bytes.Index(statement, []byte(`"predicate":`))
	if i < 0 {
		t.Fatal("no predicate")
	}
	return bytes.TrimSuffix(statement[i+len(`"predicate":`):], []byte("}"))
}

func TestSealDeterministic(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	s := testSigner(t)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	_, one := seal(t, dir, s, SealOptions{})
	runtime.GOMAXPROCS(2)
	_, two := seal(t, dir, s, SealOptions{})
	_, three := seal(t, dir, s, SealOptions{})
	if one.SHA256 != two.SHA256 || two.SHA256 != three.SHA256 {
		t.Fatalf("same run sealed three times: %s %s %s", one.SHA256, two.SHA256, three.SHA256)
	}
	// Different signers give different bundles; so does a different option.
	if _, noa := seal(t, dir, s, SealOptions{NoAudio: true}); noa.SHA256 == one.SHA256 {
		t.Error("--no-audio did not change the bundle")
	}
}

func TestSealChangedByteChangesBundle(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	s := testSigner(t)
	_, base := seal(t, dir, s, SealOptions{AllowIncomplete: true})
	seen := map[string]string{base.SHA256: "(unchanged)"}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		orig, _ := os.ReadFile(p)
		changed := bytes.Clone(orig)
		// A digit from the middle on becomes another digit, so that JSON
		// documents stay valid; other bytes flip their lowest bit.
		i := bytes.IndexAny(changed[len(changed)/2:], "12345678")
		if i >= 0 {
			changed[len(changed)/2+i]++
		} else {
			changed[len(changed)/2] ^= 1
		}
		os.WriteFile(p, changed, 0o644)
		defer os.WriteFile(p, orig, 0o644)
		var buf bytes.Buffer
		res, err := Seal(context.Background(), &buf, dir, s, SealOptions{AllowIncomplete: true})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if other, dup := seen[res.SHA256]; dup {
			t.Errorf("changing a byte of %s gives the same bundle as %s", p, other)
		}
		seen[res.SHA256] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 12 {
		t.Errorf("only %d distinct bundles", len(seen))
	}
}

func TestSealIncomplete(t *testing.T) {
	dir := t.TempDir()
	fx := smallRun
	fx.complete = false
	writeRunDir(t, dir, fx)
	os.Remove(filepath.Join(dir, "claims.json"))
	var buf bytes.Buffer
	_, err := Seal(context.Background(), &buf, dir, testSigner(t), SealOptions{})
	var re *RunDirError
	if !errors.Is(err, ErrIncomplete) || !errors.As(err, &re) || filepath.Base(re.Path) != "run.json" {
		t.Fatalf("Seal of an incomplete run = %v, want ErrIncomplete naming run.json", err)
	}
	b, res := seal(t, dir, testSigner(t), SealOptions{AllowIncomplete: true})
	if p := res.Statement.Predicate; p.Run.Complete || p.Run.Incomplete != "interrupted" || len(p.Claims) != 0 {
		t.Errorf("predicate of an incomplete run = %+v", p.Run)
	}
	if _, err := Open(bytes.NewReader(b), DefaultLimits); err != nil {
		t.Fatal(err)
	}
}

func TestSealRefusesSpecialFiles(t *testing.T) {
	for name, make := range map[string]func(string) error{
		"symlink": func(p string) error { return os.Symlink("/etc/passwd", p) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"reserved": func(p string) error {
			return os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(p)), AttestationName), []byte("{}"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeRunDir(t, dir, smallRun)
			p := filepath.Join(dir, "env", "odd")
			if err := make(p); err != nil {
				t.Skip(err)
			}
			_, err := Seal(context.Background(), io.Discard, dir, testSigner(t), SealOptions{})
			var re *RunDirError
			if !errors.As(err, &re) || !(errors.Is(err, ErrNotRegular) || errors.Is(err, ErrReservedName)) {
				t.Fatalf("Seal = %v, want a *RunDirError", err)
			}
			t.Log(err)
		})
	}
}

// TestSealRefusesFoldedDuplicates: two files whose names differ only in case
// would overwrite each other when the bundle is extracted on macOS or
// Windows (and then checked file by file with cosign), so seal refuses them.
func TestSealRefusesFoldedDuplicates(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	if err := os.WriteFile(filepath.Join(dir, "Claims.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Seal(context.Background(), io.Discard, dir, testSigner(t), SealOptions{})
	var re *RunDirError
	if !errors.As(err, &re) || !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `"Claims.json"`) {
		t.Fatalf("Seal = %v, want a *RunDirError wrapping ErrDuplicate naming Claims.json", err)
	}
}

func TestSealNoAudioAndEphemeral(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, smallRun)
	s, err := NewEphemeralSigner()
	if err != nil {
		t.Fatal(err)
	}
	b, res := seal(t, dir, s, SealOptions{NoAudio: true})
	bd, err := Open(bytes.NewReader(b), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := bd.EmbeddedKey()
	if err != nil {
		t.Fatal(err)
	}
	st, err := bd.Verify(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := bd.CheckSubjects(st); err != nil {
		t.Fatal(err)
	}
	if !st.Predicate.Key.Ephemeral || !st.Predicate.NoAudio || !res.Ephemeral {
		t.Errorf("predicate = %+v", st.Predicate)
	}
	for _, e := range bd.Entries {
		if filepath.Ext(e.Name) == ".wav" {
			t.Errorf("--no-audio bundle holds %s", e.Name)
		}
	}
	if bd.Entries[1].Name != "benchseal.pub" {
		t.Errorf("second entry = %s", bd.Entries[1].Name)
	}
	// Another key does not verify it.
	if _, err := bd.Verify(testSigner(t).PublicKey()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Verify with another key = %v", err)
	}
}
