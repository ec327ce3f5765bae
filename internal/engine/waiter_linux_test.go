package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The waiter wakes at its time when nothing comes, at once when data is
// there (the timer far off), and, once told to forget, takes a descriptor
// made again under the same number after the first was closed.
func TestWaiterWakesAtDataOrTime(t *testing.T) {
	w := newWaiter()
	require.NotNil(t, w)
	defer w.close()
	pair := func() (int, int) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		require.NoError(t, err)
		return fds[0], fds[1]
	}
	a, b := pair()

	start := time.Now()
	readable, err := w.until(a, monoNow()+int64(5*time.Millisecond))
	require.NoError(t, err)
	assert.False(t, readable)
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond, "not before its time")

	_, err = unix.Write(b, []byte("+OK\r\n"))
	require.NoError(t, err)
	start = time.Now()
	readable, err = w.until(a, monoNow()+int64(time.Minute))
	require.NoError(t, err)
	assert.True(t, readable)
	assert.Less(t, time.Since(start), 30*time.Second, "woken by the data, not the timer")

	// A stale expiry does not wake the next wait early.
	readable, err = w.until(a, monoNow()+int64(time.Millisecond))
	require.NoError(t, err)
	assert.True(t, readable, "level-triggered: the data is still there")
	var buf [8]byte
	_, _ = unix.Read(a, buf[:])
	start = time.Now()
	readable, err = w.until(a, monoNow()+int64(5*time.Millisecond))
	require.NoError(t, err)
	assert.False(t, readable)
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond)

	// The connection made again, perhaps under the same number: after
	// forget (the engine's, on a failure) the waiter adds it anew.
	require.NoError(t, unix.Close(a))
	require.NoError(t, unix.Close(b))
	w.forget()
	a2, b2 := pair()
	defer unix.Close(a2)
	defer unix.Close(b2)
	_, err = unix.Write(b2, []byte("+OK\r\n"))
	require.NoError(t, err)
	readable, err = w.until(a2, monoNow()+int64(time.Minute))
	require.NoError(t, err)
	assert.True(t, readable)
}
