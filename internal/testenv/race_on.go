//go:build race

package testenv

// Race reports a test binary built with the race detector.
const Race = true
