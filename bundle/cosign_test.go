package bundle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cosignPath finds stock cosign on PATH or in $HOME/go/bin.
func cosignPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("cosign"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, "go", "bin", "cosign"); exec.Command(p, "version").Run() == nil {
			return p
		}
	}
	t.Skip("cosign not found on PATH or in $HOME/go/bin")
	return ""
}

func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCosignInterop: every file of an extracted bundle verifies with stock
// cosign against the statement, a modified one does not, and a key made by
// cosign generate-key-pair seals bundles that benchseal verifies.
func TestCosignInterop(t *testing.T) {
	cosign := cosignPath(t)
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar")
	}
	if v, err := run(t, "", nil, cosign, "version"); err == nil {
		t.Logf("cosign: %s", firstLine(v, "GitVersion"))
	}
	runDir := t.TempDir()
	writeRunDir(t, runDir, smallRun)

	for _, keyKind := range []string{"cosign-generated", "ephemeral"} {
		t.Run(keyKind, func(t *testing.T) {
			work := t.TempDir()
			var s *Signer
			var pubPath string
			switch keyKind {
			case "cosign-generated":
				env := []string{"COSIGN_PASSWORD=correct horse"}
				if out, err := run(t, work, env, cosign, "generate-key-pair"); err != nil {
					t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
				}
				var err error
				s, err = LoadSigner(context.Background(), filepath.Join(work, "cosign.key"), func() ([]byte, error) { return []byte("correct horse"), nil })
				if err != nil {
					t.Fatal(err)
				}
				pubPath = filepath.Join(work, "cosign.pub")
				pub, err := LoadPublicKey(context.Background(), pubPath, nil)
				if err != nil {
					t.Fatal(err)
				}
				if fp, _ := Fingerprint(pub); fp != s.Fingerprint() {
					t.Fatalf("cosign.pub is %s, cosign.key signs as %s", fp, s.Fingerprint())
				}
			case "ephemeral":
				var err error
				if s, err = NewEphemeralSigner(); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if _, err := Seal(context.Background(), &buf, runDir, s, SealOptions{}); err != nil {
				t.Fatal(err)
			}
			// benchseal verifies what the cosign key signed.
			bd, err := Open(bytes.NewReader(buf.Bytes()), DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if pubPath != "" {
				pub, _ := LoadPublicKey(context.Background(), pubPath, nil)
				st, err := bd.Verify(pub)
				if err != nil {
					t.Fatalf("benchseal cannot verify a bundle signed with a cosign key: %v", err)
				}
				if err := bd.CheckSubjects(st); err != nil {
					t.Fatal(err)
				}
			}

			bundlePath := filepath.Join(work, "evidence.tar.zst")
			os.WriteFile(bundlePath, buf.Bytes(), 0o644)
			x := filepath.Join(work, "x")
			os.Mkdir(x, 0o755)
			if out, err := run(t, x, nil, "tar", "--zstd", "-xf", bundlePath); err != nil {
				t.Fatalf("tar --zstd -xf: %v\n%s", err, out)
			}
			if pubPath == "" {
				pubPath = filepath.Join(x, PublicKeyName)
			}
			verify := func(file string) (string, error) {
				return run(t, x, nil, cosign, "verify-blob-attestation", "--key", pubPath,
					"--signature", AttestationName, "--type", PredicateType, "--insecure-ignore-tlog", file)
			}
			n := 0
			for _, e := range bd.Entries[1:] {
				out, err := verify(e.Name)
				if err != nil {
					t.Errorf("cosign verify-blob-attestation %s: %v\n%s", e.Name, err, out)
					continue
				}
				t.Logf("cosign verify-blob-attestation ... %s: %s", e.Name, firstLine(out, "Verified"))
				n++
			}
			if n != len(bd.Entries)-1 || n < 11 {
				t.Errorf("cosign verified %d of %d files", n, len(bd.Entries)-1)
			}
			// A modified file fails.
			target := filepath.Join(x, "records", "a", "c4-r1.jsonl")
			b, _ := os.ReadFile(target)
			b[10] ^= 1
			os.WriteFile(target, b, 0o644)
			out, err := verify("records/a/c4-r1.jsonl")
			if err == nil || !strings.Contains(out, "no matching subject digest") {
				t.Fatalf("cosign on a modified file: %v\n%s", err, out)
			}
			t.Logf("modified records/a/c4-r1.jsonl: cosign fails as it should: %s", lastLine(out))
		})
	}
}

func firstLine(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, prefix) {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(out)
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
