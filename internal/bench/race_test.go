//go:build race

package bench

// The race detector slows the client and the in-process server several
// times over; timing tests then measure the detector.
const raceEnabled = true
