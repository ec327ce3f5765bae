package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/capacity"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestCapacitySearchAgreesWithASweep searches the highest rate at which a
// command of fixed server cost keeps p99 under 5 ms, then sweeps fixed
// rates around the answer and checks that the search landed within 10% of
// the highest rate the sweep found to hold. The cost is DEBUG SLEEP 0.001
// (the server sleeps 1 ms a call, under 1,000 calls/s): a time, not CPU
// work, so that the capacity stays put while this shared machine's speed
// drifts between the search and the sweep (a Lua loop's capacity moved 2x
// between them, and with a 200 µs sleep the per-call overhead, which drifts
// with the machine, was a third of the cost and moved it 20%).
func TestCapacitySearchAgreesWithASweep(t *testing.T) {
	r := testenv.StartRedis(t, "--enable-debug-command", "yes")
	port := strconv.Itoa(r.Port)
	const slo = "p99<5ms"
	base := []string{"redis", "-port", port, "-p", "8", "-command", "DEBUG SLEEP 0.001", "-q", "--no-server-stats"}

	jsonPath := filepath.Join(t.TempDir(), "c.json")
	out, err := exec.Command(binary(t), append(base, "--slo", slo, "--slo-window", "3", "--slo-warmup", "0.5",
		"--slo-start", "200", "--slo-precision", "0.05", "--json", jsonPath)...).CombinedOutput()
	require.NoError(t, err, string(out))
	f, err := os.Open(jsonPath)
	require.NoError(t, err)
	defer f.Close()
	doc, err := result.Read(f)
	require.NoError(t, err)
	c := doc.(*result.CapacitySearch)
	require.Positive(t, c.HighestHeld, string(out))
	require.Positive(t, c.BrokeAt)
	assert.LessOrEqual(t, (c.BrokeAt-c.HighestHeld)/c.HighestHeld, 0.05, "bisected to the precision")
	assert.NotNil(t, c.Confirm)
	assert.Contains(t, string(out), "answer       ")
	for _, st := range c.Steps {
		require.NotNil(t, st.Run.Totals.CorrectedLatency, "every step is open-loop")
	}

	// The manual sweep: fixed --rate runs from 85% to 110% of the answer,
	// 2.5% apart (the server's capacity moves a few percent between runs on
	// this shared machine, so a coarser grid alone could miss by 10%).
	parsed, err := capacity.ParseSLO(slo)
	require.NoError(t, err)
	sweepBest := 0.0
	var lines []string
	for pm := 850; pm <= 1100; pm += 25 {
		pct := float64(pm) / 10
		rate := c.HighestHeld * pct / 100
		run := runBinary(t, append(base[:len(base)-2], "-d", "3", "--warmup", "0.5", "--rate", strconv.FormatFloat(rate, 'f', 0, 64))...)
		why := parsed.Check(run, rate)
		lines = append(lines, strconv.FormatFloat(pct, 'f', 1, 64)+"%: "+strconv.FormatFloat(rate, 'f', 0, 64)+"/s "+strings.Join(why, "; "))
		if len(why) == 0 {
			sweepBest = rate
		}
	}
	t.Logf("search: %.0f/s held, %.0f/s broke; sweep:\n%s", c.HighestHeld, c.BrokeAt, strings.Join(lines, "\n"))
	require.Positive(t, sweepBest, "the sweep found a rate that held")
	assert.InEpsilon(t, sweepBest, c.HighestHeld, 0.10, "the search lands within 10%% of the sweep")
}
