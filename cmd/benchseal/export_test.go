package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/demo"
	"github.com/benchseal/benchseal/internal/export"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/parquet-go/parquet-go"
)

// TestExportDemo: `benchseal export` of the demo's bundle, read back. The
// Parquet requests table has one row per record of the bundle's records
// files and the documented columns in order; the claims table one row per
// level and repeat of claims.json plus its median, min and max; CSV and
// JSONL have the same counts. A run directory whose claims.json was
// changed fails verify and is refused with nothing written.
func TestExportDemo(t *testing.T) {
	dir := t.TempDir()
	demo := filepath.Join(dir, "d")
	if code, _, stderr := runCLI(t, "demo", "--out", demo); code != 0 {
		t.Fatalf("demo: exit %d\n%s", code, stderr)
	}
	bundle := filepath.Join(demo, "evidence.tar.zst")
	nrec := 0
	files, _ := filepath.Glob(filepath.Join(demo, "run", "records", "*", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nrec += bytes.Count(b, []byte("\n"))
	}
	var cl schemas.Claims
	readJSON(t, filepath.Join(demo, "run", "claims.json"), &cl)
	nclaims := 0
	for _, tc := range cl.Targets {
		for _, l := range tc.Levels {
			nclaims += len(l.Repeats) + 3
		}
	}
	if nrec == 0 || nclaims == 0 {
		t.Fatalf("the demo has %d records, %d claim rows", nrec, nclaims)
	}

	for _, format := range export.Formats {
		out := filepath.Join(dir, "x-"+format)
		code, _, stderr := runCLI(t, "export", bundle, "--key", filepath.Join(demo, "benchseal.pub"),
			"--tsa-cert", filepath.Join(demo, "tsa-chain.pem"), "--format", format, "-o", out)
		if code != 0 {
			t.Fatalf("export --format %s: exit %d\n%s", format, code, stderr)
		}
		for _, tb := range []struct {
			name string
			cols []export.Column
			rows int
		}{{"requests", export.RequestColumns(), nrec}, {"claims", export.ClaimColumns(), nclaims}} {
			p := filepath.Join(out, tb.name+"."+format)
			names, rows := readTable(t, p, format)
			if rows != tb.rows {
				t.Errorf("%s: %d rows, want %d", p, rows, tb.rows)
			}
			var want []string
			for _, c := range tb.cols {
				want = append(want, c.Name)
			}
			if strings.Join(names, ",") != strings.Join(want, ",") {
				t.Errorf("%s: columns %v, want %v", p, names, want)
			}
		}
	}

	// A run directory that does not verify is refused: nothing written.
	rd := filepath.Join(dir, "run")
	if err := os.CopyFS(rd, os.DirFS(filepath.Join(demo, "run"))); err != nil {
		t.Fatal(err)
	}
	cj := filepath.Join(rd, "claims.json")
	b, err := os.ReadFile(cj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cj, bytes.Replace(b, []byte(`"succeeded": `), []byte(`"succeeded": 1`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "refused")
	code, _, stderr := runCLI(t, "export", rd, "--format", "csv", "-o", out)
	if code != 1 || !strings.Contains(stderr, "does not verify") {
		t.Errorf("export of a changed run directory: exit %d, want 1 and 'does not verify'\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused export left %s behind", out)
	}
}

// readTable is a table file's column names and its row count.
func readTable(t *testing.T, path, format string) ([]string, int) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	switch format {
	case "parquet":
		st, _ := fh.Stat()
		f, err := parquet.OpenFile(fh, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fl := range f.Schema().Fields() {
			names = append(names, fl.Name())
		}
		// Read every row, not only the footer's count.
		r := parquet.NewReader(f)
		defer r.Close()
		n := 0
		buf := make([]parquet.Row, 64)
		for {
			k, err := r.ReadRows(buf)
			n += k
			if err != nil {
				break
			}
		}
		if int64(n) != f.NumRows() {
			t.Errorf("%s: read %d rows, footer says %d", path, n, f.NumRows())
		}
		return names, n
	case "csv":
		recs, err := csv.NewReader(fh).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Fatalf("%s: %v", path, err)
		}
		return recs[0], len(recs) - 1
	default:
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		var names []string
		n := 0
		for sc.Scan() {
			if n == 0 {
				// The keys in order, as written (a map would lose it).
				dec := json.NewDecoder(strings.NewReader(sc.Text()))
				dec.Token() // {
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						t.Fatal(err)
					}
					names = append(names, k.(string))
					var v json.RawMessage
					if err := dec.Decode(&v); err != nil {
						t.Fatal(err)
					}
				}
			}
			n++
		}
		return names, n
	}
}

// runCLI runs benchseal with args: its exit status, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// demoSim writes the demo's corpus to dir/corpus and serves it from a
// simulator of cfg (its Corpus set here), stopped when the test ends; it
// returns the corpus folder and the simulator's URL.
func demoSim(t *testing.T, dir string, cfg sim.Config) (corpus, url string) {
	t.Helper()
	corpus = filepath.Join(dir, "corpus")
	if err := demo.WriteCorpus(corpus); err != nil {
		t.Fatal(err)
	}
	clips, err := sim.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Corpus = clips
	url, stop, err := startSim(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return corpus, url
}
