package capture

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/trace"
)

const monitorText = "OK\n" +
	"1700000000.000001 [0 127.0.0.1:5001] \"SET\" \"user:1:cart\" \"a\\x00b\"\n" +
	"1700000000.250001 [2 127.0.0.1:5002] \"get\" \"user:1:cart\"\n" +
	"not a monitor line\n" +
	"1700000001.000001 [0 127.0.0.1:5001] \"GET\" \"user:1:cart\"\n"

// The conversion keeps each command's time from the first, its
// connection (numbered as they come), database and arguments, and prints
// the mix.
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt")
	require.NoError(t, os.WriteFile(in, []byte(monitorText), 0o644))
	out := filepath.Join(dir, "t.tbt")
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(Options{Input: in, Out: out, SkipBad: true}, hio))
	assert.Contains(t, stdout.String(), "3 commands from 2 connections over 1s; 1 lines that did not parse passed over (--skip-bad)")
	assert.Regexp(t, `GET +2 +66\.7 %`, stdout.String())

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	r, err := trace.NewReader(f)
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, "MONITOR text: "+in, r.Meta().Source)
	assert.True(t, r.Meta().Start.Equal(time.Unix(1700000000, 1000)))
	var rec trace.Record
	for _, want := range []struct {
		at       time.Duration
		conn, db uint32
		args     []string
	}{
		{0, 0, 0, []string{"SET", "user:1:cart", "a\x00b"}},
		{250 * time.Millisecond, 1, 2, []string{"get", "user:1:cart"}},
		{time.Second, 0, 0, []string{"GET", "user:1:cart"}},
	} {
		require.NoError(t, r.Read(&rec))
		assert.Equal(t, want.at, rec.At)
		assert.Equal(t, want.conn, rec.Conn)
		assert.Equal(t, want.db, rec.DB)
		var args []string
		for _, a := range rec.Args {
			args = append(args, string(a))
		}
		assert.Equal(t, want.args, args)
	}
	assert.True(t, errors.Is(r.Read(&rec), io.EOF))
}

// A compressed log reads as the plain one (gzip here).
func TestConvertCompressed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(monitorText))
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(in, b.Bytes(), 0o644))
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(Options{Input: in, Out: filepath.Join(dir, "t.tbt"), SkipBad: true}, hio))
	assert.Contains(t, stdout.String(), "3 commands from 2 connections over 1s")
}

// Bad input is refused in one line, and no trace is left behind.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt")
	require.NoError(t, os.WriteFile(in, []byte(monitorText), 0o644))
	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("OK\n"), 0o644))
	out := filepath.Join(dir, "t.tbt")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Out: out}, "--input FILE is required"},
		{Options{Input: in}, "-o TRACE is required"},
		{Options{Input: filepath.Join(dir, "none.txt"), Out: out}, "no such file"},
		{Options{Input: in, Out: out}, "monitor.txt: MONITOR line 4: \"not\" is not a time (seconds.microseconds) (--skip-bad counts such lines and goes on)"},
		{Options{Input: empty, Out: out}, "empty.txt: no MONITOR command line in it"},
	} {
		hio, _, _ := harness.Captured("test")
		assert.ErrorContains(t, Main(tc.o, hio), tc.want)
		assert.NoFileExists(t, out, "nothing is left when the input is bad")
	}
}
