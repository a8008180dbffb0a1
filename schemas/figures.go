package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// metricsJSON is Metrics without its JSON methods.
type metricsJSON Metrics

// coreMetricNames are the JSON names of Metrics' own fields: any other
// numeric member of a metrics object is a task's figure.
var coreMetricNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeFor[Metrics]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
})

// MarshalJSON writes the core's members, then each figure, by name.
func (m Metrics) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(metricsJSON(m))
	if err != nil || len(m.Figures) == 0 {
		return b, err
	}
	names := make([]string, 0, len(m.Figures))
	for k := range m.Figures {
		names = append(names, k)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range names {
		if coreMetricNames()[k] {
			continue // a figure never shadows a core member
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(m.Figures[k])
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the core's members, and every other numeric member
// into Figures.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*metricsJSON)(m)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k, raw := range all {
		if coreMetricNames()[k] {
			continue
		}
		var x float64
		if json.Unmarshal(raw, &x) != nil {
			continue
		}
		if m.Figures == nil {
			m.Figures = map[string]float64{}
		}
		m.Figures[k] = x
	}
	return nil
}

// Figure is the figure name of m, nil when absent (not observed).
func (m *Metrics) Figure(name string) *float64 {
	if x, ok := m.Figures[name]; ok {
		return &x
	}
	return nil
}
