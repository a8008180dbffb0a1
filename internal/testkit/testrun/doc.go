// Package testrun is the run-directory fixture of every package's tests:
// a real run of benchseal's runner against the simulated server on
// loopback, with real WAV clips (internal/testkit), written where the
// test says. Tests and examples of verify, bundle and report use it;
// cmd/benchseal's scripts have the same as their `mkrun` command.
//
// # Imports
//
// It owns the run fixture. Must never import: bundle, verify,
// internal/report. Why: their tests use it, and would import themselves.
package testrun
