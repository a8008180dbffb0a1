// Package imports holds no code: its test enforces the import rules that
// each package's doc.go states in its "Imports" section (a sentence
// listing the packages it must never import), over the transitive
// dependencies go list reports. A
// rule broken, misspelt or removed from a doc.go the issue depends on
// fails `go test ./...`:
//
//   - the formats (perturb, bundle, schemas) never import the runner
//     (internal/bench);
//   - verify never imports the load generator (internal/bench);
//   - the simulator (internal/sim) and the client (internal/bench) share
//     no code: neither imports the other, and the simulator imports none
//     of the client's packages (a table of facts both read, such as
//     schemas, is not code they share).
//
// # Imports
//
// It owns the import rules' test. Must never import: internal/bench. Why:
// it reads the module with go list, it links nothing.
package imports
