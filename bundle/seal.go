package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchseal/benchseal/schemas"
	"github.com/klauspost/compress/zstd"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// Names of the entries Seal adds to the run directory's files.
const (
	AttestationName = "attestation.dsse.json"
	PublicKeyName   = "benchseal.pub"
	// TimestampName is a time-stamping authority's answer (an RFC 3161
	// TimeStampResp) over attestation.dsse.json's bytes, when the seal was
	// time-stamped (SealOptions.Timestamp). It is the one entry the
	// statement cannot list, since it dates the statement's envelope; it
	// follows the attestation.
	TimestampName = "attestation.tsr"
)

// The fixed compression of every bundle. SpeedFastest: clips (most of the
// bytes) barely compress at any level and JSONL compresses well at this one;
// a higher level costs seal throughput for a few percent. The window is
// pinned so that the bytes do not depend on the library's defaults.
const (
	zstdLevel  = zstd.SpeedFastest
	zstdWindow = 4 << 20
)

// maxDocument caps run.json and claims.json, which Seal reads whole.
const maxDocument = 256 << 20

// SealOptions change what Seal packs.
type SealOptions struct {
	// NoAudio leaves out inputs/*.wav; their hashes stay in run.json's corpus.
	NoAudio bool
	// AllowIncomplete seals a run whose run.json says it did not finish;
	// the predicate then says complete: false (and why).
	AllowIncomplete bool
	// Sealer names the sealing program in the predicate.
	Sealer schemas.Sealer
	// Check, when set, is called with the run directory after its documents
	// and files were found fit to seal and before anything is hashed or
	// signed; its error fails the seal as it is. benchseal seal passes
	// session.CheckClaims, so that its key never goes on claims the records
	// do not give (this package does not recompute claims itself).
	Check func(runDir string) error
	// Replay, when set, is a replay's comparison with the run it re-ran
	// (benchseal replay --seal): signed in the predicate as it is.
	Replay *schemas.PredicateReplay
	// Timestamp, when set, is called with attestation.dsse.json's bytes once
	// the statement is signed; what it returns (a TimeStampResp) is packed
	// as attestation.tsr, second. Its error fails the seal as it is.
	Timestamp func(ctx context.Context, envelope []byte) ([]byte, error)
}

// SealResult describes a written bundle.
type SealResult struct {
	SHA256      string // hex SHA-256 of the bundle bytes written to dst
	Size        int64  // bytes written to dst
	Fingerprint string // of the signing key, see Fingerprint
	Ephemeral   bool   // the key was made for this seal; benchseal.pub is in the bundle
	Envelope    []byte // attestation.dsse.json
	Timestamp   []byte // attestation.tsr; nil when the seal was not time-stamped
	Statement   *Statement
}

// Errors about the run directory, wrapped in a *RunDirError.
var (
	ErrIncomplete   = errors.New("the run did not complete")
	ErrReservedName = errors.New("name reserved for the bundle's own entries")
	ErrChanged      = errors.New("file changed while it was being sealed")
)

// RunDirError names the file of the run directory that Seal refused.
type RunDirError struct {
	Path string // as given (run directory joined with the file's path)
	Err  error
}

func (e *RunDirError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *RunDirError) Unwrap() error { return e.Err }

type sealFile struct {
	name   string // archive path, slash-separated
	abs    string
	size   int64
	sha256 string
}

// Seal writes the bundle of the run directory runDir to dst and signs its
// statement with s. It reads every file twice (hashing, then packing) and
// never holds one in memory; a file that changes between the two reads
// fails the seal with ErrChanged. dst receives nothing useful on error:
// callers write to a temporary file (see the package doc).
func Seal(ctx context.Context, dst io.Writer, runDir string, s *Signer, opts SealOptions) (*SealResult, error) {
	run, claims, err := readRunDocs(runDir, opts.AllowIncomplete)
	if err != nil {
		return nil, err
	}
	files, err := listRunDir(runDir, opts.NoAudio)
	if err != nil {
		return nil, err
	}
	if opts.Check != nil {
		if err := opts.Check(runDir); err != nil {
			return nil, err
		}
	}

	buf := make([]byte, 1<<20)
	var pubPEM []byte
	if s.ephemeral {
		if pubPEM, err = cryptoutils.MarshalPublicKeyToPEM(s.pub); err != nil {
			return nil, err
		}
	}
	var total int64
	subjects := make([]Subject, 0, len(files)+1)
	for i := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := &files[i]
		sum, n, err := hashFile(f.abs, buf)
		if err != nil {
			return nil, &RunDirError{Path: f.abs, Err: err}
		}
		f.sha256, f.size = sum, n
		total += n
	}
	// benchseal.pub sorts among the files like any other; it is a subject
	// too, so that every entry but the attestation is covered.
	if pubPEM != nil {
		sum := sha256.Sum256(pubPEM)
		files = append(files, sealFile{name: PublicKeyName, size: int64(len(pubPEM)), sha256: hex.EncodeToString(sum[:])})
		total += int64(len(pubPEM))
		sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	}
	for _, f := range files {
		subjects = append(subjects, Subject{Name: f.name, Digest: map[string]string{"sha256": f.sha256}})
	}

	pred := schemas.PredicateFromRun(run, claims)
	pred.Key = schemas.PredicateKey{Fingerprint: s.Fingerprint(), Ephemeral: s.ephemeral}
	pred.Sealer = opts.Sealer
	pred.Files, pred.Bytes, pred.NoAudio = len(files), total, opts.NoAudio
	pred.Replay = opts.Replay
	st := &Statement{Type: StatementType, Subject: subjects, PredicateType: PredicateType, Predicate: pred}
	env, err := signStatement(st, s)
	if err != nil {
		return nil, err
	}
	var tsr []byte
	if opts.Timestamp != nil {
		if tsr, err = opts.Timestamp(ctx, env); err != nil {
			return nil, err
		}
	}

	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(dst, h)}
	zw, err := zstd.NewWriter(cw, zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true), zstd.WithWindowSize(zstdWindow))
	if err != nil {
		return nil, err
	}
	defer zw.Close()
	tw := tar.NewWriter(zw)
	mtime := run.StartedAt.UTC().Truncate(time.Second)
	if err := writeEntry(tw, AttestationName, mtime, int64(len(env)), bytes.NewReader(env)); err != nil {
		return nil, err
	}
	if tsr != nil {
		if err := writeEntry(tw, TimestampName, mtime, int64(len(tsr)), bytes.NewReader(tsr)); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.abs == "" {
			if err := writeEntry(tw, f.name, mtime, f.size, bytes.NewReader(pubPEM)); err != nil {
				return nil, err
			}
			continue
		}
		if err := packFile(tw, f, mtime, buf); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &SealResult{SHA256: hex.EncodeToString(h.Sum(nil)), Size: cw.n, Fingerprint: s.Fingerprint(),
		Ephemeral: s.ephemeral, Envelope: env, Timestamp: tsr, Statement: st}, nil
}

// header is the one tar header shape of a bundle: nothing in it depends on
// the machine, the user or the file system.
func header(name string, mtime time.Time, size int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: mtime,
		Format: tar.FormatPAX}
}

func writeEntry(tw *tar.Writer, name string, mtime time.Time, size int64, r io.Reader) error {
	if err := tw.WriteHeader(header(name, mtime, size)); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
}

func packFile(tw *tar.Writer, f sealFile, mtime time.Time, buf []byte) error {
	in, err := os.Open(f.abs)
	if err != nil {
		return &RunDirError{Path: f.abs, Err: err}
	}
	defer in.Close()
	if err := tw.WriteHeader(header(f.name, mtime, f.size)); err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.CopyBuffer(tw, io.TeeReader(io.LimitReader(in, f.size), h), buf)
	if err != nil {
		return &RunDirError{Path: f.abs, Err: err}
	}
	if n != f.size || hex.EncodeToString(h.Sum(nil)) != f.sha256 {
		return &RunDirError{Path: f.abs, Err: ErrChanged}
	}
	if k, _ := in.Read(buf[:1]); k != 0 {
		return &RunDirError{Path: f.abs, Err: ErrChanged}
	}
	return nil
}

func hashFile(name string, buf []byte) (string, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(onlyWriter{h}, f, buf)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// onlyWriter hides ReadFrom so io.CopyBuffer uses the given buffer.
type onlyWriter struct{ hash.Hash }

func (w onlyWriter) Write(p []byte) (int, error) { return w.Hash.Write(p) }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// readRunDocs reads run.json (required) and claims.json (required for a
// complete run) and checks them against their schemas.
func readRunDocs(runDir string, allowIncomplete bool) (*schemas.Run, *schemas.Claims, error) {
	runPath := filepath.Join(runDir, schemas.RunFile)
	raw, err := readDoc(runPath)
	if err != nil {
		return nil, nil, &RunDirError{Path: runPath, Err: err}
	}
	if err := schemas.Validate("run", raw); err != nil {
		return nil, nil, &RunDirError{Path: runPath, Err: err}
	}
	var run schemas.Run
	if err := json.Unmarshal(raw, &run); err != nil {
		return nil, nil, &RunDirError{Path: runPath, Err: err}
	}
	if !run.Complete && !allowIncomplete {
		err := ErrIncomplete
		if run.Incomplete != "" {
			err = fmt.Errorf("%w: %s", ErrIncomplete, run.Incomplete)
		}
		return nil, nil, &RunDirError{Path: runPath, Err: err}
	}
	claimsPath := filepath.Join(runDir, schemas.ClaimsFile)
	raw, err = readDoc(claimsPath)
	if errors.Is(err, fs.ErrNotExist) && !run.Complete {
		return &run, nil, nil
	}
	if err != nil {
		return nil, nil, &RunDirError{Path: claimsPath, Err: err}
	}
	if err := schemas.Validate("claims", raw); err != nil {
		return nil, nil, &RunDirError{Path: claimsPath, Err: err}
	}
	var claims schemas.Claims
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, nil, &RunDirError{Path: claimsPath, Err: err}
	}
	return &run, &claims, nil
}

func readDoc(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxDocument+1))
	if err == nil && len(raw) > maxDocument {
		err = fmt.Errorf("larger than %d bytes", maxDocument)
	}
	return raw, err
}

// listRunDir returns every regular file under runDir in bytewise order of
// archive path. Symbolic links and special files are refused, not followed
// or skipped: the bundle must hold what the run wrote, all of it.
func listRunDir(runDir string, noAudio bool) ([]sealFile, error) {
	var files []sealFile
	err := filepath.WalkDir(runDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &RunDirError{Path: p, Err: err}
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(runDir, p)
		if err != nil {
			return &RunDirError{Path: p, Err: err}
		}
		name := filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			return &RunDirError{Path: p, Err: fmt.Errorf("%w (%s)", ErrNotRegular, typeName(d.Type()))}
		}
		if err := checkName(name); err != nil {
			return &RunDirError{Path: p, Err: err}
		}
		if name == AttestationName || name == PublicKeyName || name == TimestampName {
			return &RunDirError{Path: p, Err: ErrReservedName}
		}
		if noAudio && path.Dir(name) == "inputs" && strings.HasSuffix(name, ".wav") {
			return nil
		}
		files = append(files, sealFile{name: name, abs: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	folded := map[string]string{}
	for _, f := range files {
		if first, dup := folded[foldName(f.name)]; dup {
			return nil, &RunDirError{Path: f.abs, Err: fmt.Errorf("%w: the same file as %q where names ignore case or Unicode normalisation (macOS, Windows)", ErrDuplicate, first)}
		}
		folded[foldName(f.name)] = f.name
	}
	return files, nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "not a regular file"
}
