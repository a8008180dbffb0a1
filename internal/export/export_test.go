package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
	"github.com/parquet-go/parquet-go"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/export.md's column tables from RequestColumns and ClaimColumns")

const (
	docsBegin = "<!-- columns: generated from internal/export (go test ./internal/export -run TestColumnsDocumented -update-docs) -->\n"
	docsEnd   = "<!-- end of columns -->"
)

// columnsMarkdown is docs/export.md's tables of the columns, in order.
func columnsMarkdown() string {
	var b strings.Builder
	for _, t := range []struct {
		name string
		cols []Column
	}{{"requests", RequestColumns()}, {"claims", ClaimColumns()}} {
		b.WriteString("\n### " + t.name + "\n\n| column | type | null | what it holds |\n|---|---|---|---|\n")
		for _, c := range t.cols {
			null := ""
			if c.Null {
				null = "null"
			}
			doc := strings.ReplaceAll(c.Doc, "|", `\|`)
			b.WriteString("| `" + c.Name + "` | " + c.Kind.String() + " | " + null + " | " + doc + " |\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// TestColumnsDocumented holds docs/export.md's column tables to the
// columns export writes: a column added, renamed or moved and not in the
// docs fails it.
func TestColumnsDocumented(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "export.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, docsBegin), strings.Index(doc, docsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated column tables (markers %q ... %q)", path, docsBegin, docsEnd)
	}
	want := columnsMarkdown()
	got := doc[i+len(docsBegin) : j]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(doc[:i+len(docsBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's column tables differ from the columns export writes; run go test ./internal/export -run TestColumnsDocumented -update-docs\ngot:\n%s\nwant:\n%s", path, got, want)
}

// TestColumnNames: names are unique, snake_case, and every requests
// getter and claims getter yields its column's kind.
func TestColumnNames(t *testing.T) {
	for _, cols := range [][]Column{RequestColumns(), ClaimColumns()} {
		seen := map[string]bool{}
		for _, c := range cols {
			if seen[c.Name] || strings.Trim(c.Name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
				t.Errorf("column %q: duplicated or not snake_case", c.Name)
			}
			seen[c.Name] = true
		}
	}
	one := 1.5
	run := schemas.Run{Protocol: schemas.Protocol{Levels: []int{1}, Mode: schemas.ModeOpen, RequestRates: []float64{2}}}
	req := Requests(run, []schemas.Record{{Target: "a", Concurrency: 1, Repeat: 1, Phase: "measure", StartNs: 10, FirstByteNs: 20, EndNs: 1e9 + 10, PlannedNs: 5}})
	cl := Claims(run, schemas.Claims{Targets: []schemas.TargetClaims{{Target: "a", Levels: []schemas.LevelClaims{{Concurrency: 1, Repeats: []schemas.Metrics{{Requests: 1, RTFx: &one, Errors: map[string]int{"timeout": 2, "http": 1}}}}}}}})
	for _, tb := range []Table{req, cl} {
		for _, row := range tb.Rows {
			if len(row) != len(tb.Columns) {
				t.Fatalf("%s: row of %d values, %d columns", tb.Name, len(row), len(tb.Columns))
			}
			for i, v := range row {
				c := tb.Columns[i]
				ok := false
				switch v.(type) {
				case nil:
					ok = c.Null
				case int64:
					ok = c.Kind == Int
				case float64:
					ok = c.Kind == Float
				case string:
					ok = c.Kind == String
				case bool:
					ok = c.Kind == Bool
				}
				if !ok {
					t.Errorf("%s.%s: value %#v for a %s column (null %v)", tb.Name, c.Name, v, c.Kind, c.Null)
				}
			}
		}
	}
	if len(cl.Rows) != 4 {
		t.Fatalf("claims of one repeat: %d rows, want 4 (repeat, median, min, max)", len(cl.Rows))
	}
	get := func(tb Table, row int, name string) any {
		for i, c := range tb.Columns {
			if c.Name == name {
				return tb.Rows[row][i]
			}
		}
		t.Fatalf("%s has no column %s", tb.Name, name)
		return nil
	}
	if v := get(req, 0, "latency_s"); v != 1.0 {
		t.Errorf("latency_s = %v, want 1", v)
	}
	if v := get(req, 0, "offered_rate_per_s"); v != 2.0 {
		t.Errorf("offered_rate_per_s = %v, want 2", v)
	}
	if v := get(cl, 0, "errors"); v != `{"http":1,"timeout":2}` {
		t.Errorf("errors = %v", v)
	}
	if v := get(cl, 1, "rtfx"); v != nil {
		t.Errorf("median row's rtfx = %v, want null", v)
	}
}

// TestWriteFormats writes one table with nulls in each format and reads
// it back: the same columns in order, the same rows, nulls as nulls.
func TestWriteFormats(t *testing.T) {
	tb := Table{Name: "t", Columns: []Column{
		{Name: "s", Kind: String}, {Name: "i", Kind: Int}, {Name: "f", Kind: Float, Null: true}, {Name: "b", Kind: Bool},
	}, Rows: [][]any{{"a,\"b\"", int64(-3), 0.1, true}, {"", int64(7), nil, false}}}

	var buf bytes.Buffer
	if err := Write(&buf, tb, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"s", "i", "f", "b"}, {"a,\"b\"", "-3", "0.1", "true"}, {"", "7", "", "false"}}
	if !equal2(recs, want) {
		t.Errorf("csv: %q, want %q", recs, want)
	}

	buf.Reset()
	if err := Write(&buf, tb, "jsonl"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 || lines[1] != `{"s":"","i":7,"f":null,"b":false}` {
		t.Errorf("jsonl: %q", lines)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil || m["s"] != "a,\"b\"" || m["f"] != 0.1 {
		t.Errorf("jsonl line 1: %v %v", m, err)
	}

	buf.Reset()
	if err := Write(&buf, tb, "parquet"); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 2 {
		t.Fatalf("parquet: %d rows, want 2", f.NumRows())
	}
	var names []string
	for _, fl := range f.Schema().Fields() {
		names = append(names, fl.Name())
	}
	if strings.Join(names, ",") != "s,i,f,b" {
		t.Errorf("parquet columns %v, want s,i,f,b in order", names)
	}
	rows := make([]parquet.Row, 2)
	r := parquet.NewReader(f)
	defer r.Close()
	n, _ := r.ReadRows(rows)
	if n != 2 {
		t.Fatalf("parquet: read %d rows", n)
	}
	if got := rows[0][0].String(); got != "a,\"b\"" {
		t.Errorf("parquet row 1 s = %q", got)
	}
	if rows[0][1].Int64() != -3 || rows[0][2].Double() != 0.1 || !rows[0][3].Boolean() {
		t.Errorf("parquet row 1 = %v", rows[0])
	}
	if !rows[1][2].IsNull() || rows[1][1].Int64() != 7 || rows[1][3].Boolean() {
		t.Errorf("parquet row 2 = %v (f must be null)", rows[1])
	}
}

func equal2(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}
