package fit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/internal/workload"
)

// writeTrace writes a small trace: GETs of 100 keys in turn, a SET in
// ten, on two connections, 1 ms apart.
func writeTrace(t *testing.T, path string) {
	var recs []trace.Record
	for i := range 1000 {
		cmd := fmt.Sprintf("GET item:%d", i%100)
		if i%10 == 0 {
			cmd = fmt.Sprintf("SET item:%d 0123456789", i%100)
		}
		recs = append(recs, trace.Record{At: time.Duration(i) * time.Millisecond, Conn: uint32(i % 2), Args: testenv.Args(cmd)})
	}
	testenv.WriteTrace(t, path, recs)
}

// TestMain writes a workload that reads back and prints the model; the
// printed summary is held by a golden file.
func TestFitMain(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.tbt"), filepath.Join(dir, "w.yaml")
	writeTrace(t, in)
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(Options{Trace: in, Out: out}, hio))
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	w, err := workload.Read(f)
	require.NoError(t, err)
	assert.Equal(t, 2, w.Connections)
	require.Len(t, w.Operations, 2)
	assert.Equal(t, "GET item:__RAND{k}__", w.Operations[0].Command)
	assert.Equal(t, "SET item:__RAND{k}__ __DATA__", w.Operations[1].Command)
	assert.Equal(t, 10, w.Operations[1].DataSize)
	testenv.Golden(t, "fit.txt", []byte(strings.ReplaceAll(stdout.String(), dir, "DIR")))
}

// TestFitRefuses: bad input is refused and leaves no file.
func TestFitRefuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.yaml")
	text := filepath.Join(dir, "m.txt")
	require.NoError(t, os.WriteFile(text, []byte("OK\n"), 0o644))
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Out: out}, "name the trace to fit"},
		{Options{Trace: text}, "-o FILE is required"},
		{Options{Trace: filepath.Join(dir, "none"), Out: out}, "no such file"},
		{Options{Trace: text, Out: out}, "not a tairbench trace"},
	} {
		hio, _, _ := harness.Captured("test")
		assert.ErrorContains(t, Main(c.o, hio), c.want)
		assert.NoFileExists(t, out)
	}
}
