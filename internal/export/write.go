package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// Formats are the formats Write takes, which are also the files' extensions.
var Formats = []string{"csv", "parquet", "jsonl"}

// Write writes t to w in format (one of Formats).
func Write(w io.Writer, t Table, format string) error {
	switch format {
	case "csv":
		return writeCSV(w, t)
	case "jsonl":
		return writeJSONL(w, t)
	case "parquet":
		return writeParquet(w, t)
	}
	return fmt.Errorf("export: unknown format %q (want csv, parquet or jsonl)", format)
}

// text is a value as CSV writes it: a null is empty, a float its shortest
// exact decimal.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	panic(fmt.Sprintf("export: value of type %T", v))
}

func writeCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		rec[i] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, row := range t.Rows {
		for i, v := range row {
			rec[i] = text(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeJSONL(w io.Writer, t Table) error {
	bw := bufio.NewWriter(w)
	keys := make([][]byte, len(t.Columns))
	for i, c := range t.Columns {
		keys[i], _ = json.Marshal(c.Name)
	}
	var line []byte
	for _, row := range t.Rows {
		line = append(line[:0], '{')
		for i, v := range row {
			if i > 0 {
				line = append(line, ',')
			}
			line = append(line, keys[i]...)
			line = append(line, ':')
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("export: %s: %w", t.Columns[i].Name, err)
			}
			line = append(line, b...)
		}
		line = append(line, '}', '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

var goTypes = map[Kind]reflect.Type{
	Int:    reflect.TypeFor[int64](),
	Float:  reflect.TypeFor[float64](),
	String: reflect.TypeFor[string](),
	Bool:   reflect.TypeFor[bool](),
}

// rowType is the struct type of t's rows: one exported field per column,
// in order, named by its parquet tag; a column that may be null is a
// pointer (an optional Parquet column).
func rowType(cols []Column) reflect.Type {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		typ := goTypes[c.Kind]
		tag := c.Name
		if c.Null {
			typ = reflect.PointerTo(typ)
			tag += ",optional"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	return reflect.StructOf(fields)
}

func writeParquet(w io.Writer, t Table) error {
	typ := rowType(t.Columns)
	schema := parquet.SchemaOf(reflect.New(typ).Interface())
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd))
	row := reflect.New(typ).Elem()
	for _, vals := range t.Rows {
		for i, v := range vals {
			f := row.Field(i)
			switch {
			case v == nil:
				f.SetZero()
			case t.Columns[i].Null:
				p := reflect.New(goTypes[t.Columns[i].Kind])
				p.Elem().Set(reflect.ValueOf(v))
				f.Set(p)
			default:
				f.Set(reflect.ValueOf(v))
			}
		}
		if err := pw.Write(row.Interface()); err != nil {
			return fmt.Errorf("export: parquet: %w", err)
		}
	}
	return pw.Close()
}
