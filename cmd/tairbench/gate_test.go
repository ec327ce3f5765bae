package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateRun is one 3-second open-loop run against the embedded server,
// stored with tag.
func gateRun(t *testing.T, db string, rate int, tag string) error {
	return tairbench(t, "redis", "--embedded", "-p", "2", "--rate", fmt.Sprint(rate), "-d", "3", "-q",
		"-command", "GET k-__RAND__", "--store", db, "--tag", tag)
}

// gateExit runs 'tairbench gate' on the latest run and returns its output
// and exit status.
func gateExit(t *testing.T, db string, junit string) (string, int) {
	out, err := exec.Command(binary(t), "gate", "--store", db, "--baseline", "last 7 where tag.branch=main", "--junit", junit).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err, string(out))
	return string(out), 0
}

// TestGateAndTrendOverSevenRuns: over seven stored runs of one build, a
// run made 20 % slower by a --rate cap fails the gate (exit 99), and
// another run of the same build passes it (exit 0). Each run is real:
// tairbench against its embedded server, stored by --store. The trend of
// those nine runs marks the slower one as its change point, in the
// terminal and in the HTML report, whose chart headless Chromium draws.
func TestGateAndTrendOverSevenRuns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	atOnce(t, 7, func(int) error { return gateRun(t, db, 1000, "branch=main") })

	require.NoError(t, gateRun(t, db, 800, "branch=slower"))
	out, code := gateExit(t, db, filepath.Join(dir, "slower.xml"))
	assert.Equal(t, 99, code, out)
	assert.Contains(t, out, "regression: 20.0 % worse than the baseline's median")
	assert.Contains(t, out, "loop: open at 1000/s (constant) → open at 800/s (constant)")

	require.NoError(t, gateRun(t, db, 1000, "branch=same"))
	out, code = gateExit(t, db, filepath.Join(dir, "same.xml"))
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "within noise")
	assert.Contains(t, out, "gate: passed (exit 0)")

	trend, err := exec.Command(binary(t), "history", "--store", db, "--trend", "qps").CombinedOutput()
	require.NoError(t, err, string(trend))
	assert.Regexp(t, `(?m)^8 .* 800 .*-20\.0 %\s+◆ change point, regression`, string(trend))
	assert.Contains(t, string(trend), "1 change point(s)")

	page := filepath.Join(dir, "trend.html")
	require.NoError(t, tairbench(t, "report", "--store", db, "--trend", "qps", "-o", page))
	dom, logs := chromium(t, page, "--dump-dom")
	for _, l := range strings.Split(logs, "\n") {
		assert.NotRegexp(t, `:CONSOLE[:(]|Uncaught `, l, "a console message")
	}
	assert.Equal(t, 1, strings.Count(dom, `data-rendered="yes"`), "the trend's chart drew data")
	assert.Contains(t, dom, "◆ change point: run 8, -20.0 %")
}
