package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptSavesPartialResult builds the binary, interrupts a long run
// with SIGINT, and checks that it stops cleanly, prints the summary, writes
// the partial result and exits 130, as shells report SIGINT, so that a
// script can tell it from a full run (SIGTERM: 143).
func TestInterruptSavesPartialResult(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tairbench")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	jsonPath := filepath.Join(dir, "r.json")
	cmd := exec.Command(bin, "redis", "--embedded", "-d", "60", "-p", "2", "-command", "TR.SETBIT k __RAND__ 1", "-q", "--json", jsonPath)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-done:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "an interrupted run does not exit 0")
		assert.Equal(t, 130, ee.ExitCode())
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit within 10 s of SIGINT")
	}
	assert.Contains(t, stdout.String(), "partial results")
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var r struct {
		StopReason string `json:"stop_reason"`
		Totals     struct {
			Ops int64 `json:"ops"`
		} `json:"totals"`
	}
	require.NoError(t, json.Unmarshal(raw, &r))
	assert.Equal(t, "interrupted", r.StopReason)
	assert.Greater(t, r.Totals.Ops, int64(100))
}

// TestTerminateExits143: SIGTERM (a Kubernetes pod stopped, a CI timeout)
// also stops the run cleanly, with its partial result, and exits 143.
func TestTerminateExits143(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(binary(t), "redis", "--embedded", "-d", "60", "-p", "2", "-command", "TR.SETBIT k __RAND__ 1", "-q", "--json", jsonPath)
	require.NoError(t, cmd.Start())
	time.Sleep(1500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, 143, ee.ExitCode())
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"stop_reason": "interrupted"`)
}
