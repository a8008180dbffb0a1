// Package testkit is what every package's tests share: one maker of real
// WAV files and one signing key maker, so that a test builds its inputs
// the same way everywhere and a change of format is made once. It imports
// only the standard library, so that any package's tests (perturb's and
// bundle's included) may use it without a cycle.
//
// The run-directory fixture, which needs the runner and the simulator,
// is the `mkrun` command of cmd/benchseal's scripts and verify's makeRun.
//
// # Imports
//
// It owns the shared test inputs. Must never import: internal/bench,
// internal/sim, bundle, verify. Why: the packages whose tests use it would
// import themselves.
package testkit
