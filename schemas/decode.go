package schemas

import "encoding/json"

// Decode validates b against the named schema (see Validate) and only then
// decodes it into v: a document that does not match its schema is never
// used.
func Decode(schema string, b []byte, v any) error {
	if err := Validate(schema, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
