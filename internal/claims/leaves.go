package claims

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Leaves lists a JSON document's leaves as path -> JSON literal, in
// document order. Array elements are named by what identifies them in
// benchseal's documents: a target's name, a level's concurrency, a
// repeat's 1-based number ("targets[a].levels[c=16].repeats[r=2].rtfx").
// verify's check 6 and seal's claims check compare claims.json with the
// recomputed claims leaf by leaf through it, so both name a differing
// figure alike.
func Leaves(doc []byte) (map[string]string, []string, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var root any
	if err := d.Decode(&root); err != nil {
		return nil, nil, err
	}
	m := map[string]string{}
	var keys []string
	var walk func(prefix, key string, v any)
	walk = func(prefix, key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, k, x[k])
			}
			if len(x) == 0 {
				m[prefix] = "{}"
				keys = append(keys, prefix)
			}
		case []any:
			// A name seen twice in one array (a target or level listed
			// twice) gets its occurrence number: otherwise the later copy
			// would overwrite the earlier one here and a made-up copy
			// could hide before the true one.
			seen := map[string]int{}
			for i, sub := range x {
				name := elemName(key, i, sub)
				if seen[name]++; seen[name] > 1 {
					name += "#" + strconv.Itoa(seen[name])
				}
				walk(prefix+"["+name+"]", "", sub)
			}
			if len(x) == 0 {
				m[prefix] = "[]"
				keys = append(keys, prefix)
			}
		default:
			lit, _ := json.Marshal(x)
			m[prefix] = string(lit)
			keys = append(keys, prefix)
		}
	}
	walk("", "", root)
	return m, keys, nil
}

func elemName(key string, i int, v any) string {
	if o, ok := v.(map[string]any); ok {
		if t, ok := o["target"].(string); ok {
			return t
		}
		if c, ok := o["concurrency"].(json.Number); ok {
			return "c=" + c.String()
		}
		if n, ok := o["name"].(string); ok {
			return n
		}
	}
	if key == "repeats" {
		return "r=" + strconv.Itoa(i+1)
	}
	return strconv.Itoa(i)
}
