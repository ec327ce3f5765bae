package pollset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// pair returns a connected socket pair: data written to w is ready on r.
func pair(t *testing.T) (r, w int) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = unix.Close(fds[0]); _ = unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// oneWatched returns a set watching one socket (r) under tag, and the
// socket's other end (w), to write to.
func oneWatched(t *testing.T, tag int32) (s *Set, r, w int) {
	s, err := New(4)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	r, w = pair(t)
	require.NoError(t, s.Add(r, tag))
	return s, r, w
}

func TestSetReportsWhatIsReady(t *testing.T) {
	s, err := New(4)
	require.NoError(t, err)
	defer s.Close()
	r1, w1 := pair(t)
	r2, w2 := pair(t)
	require.NoError(t, s.Add(r1, 1))
	require.NoError(t, s.Add(r2, 2))

	tags, err := s.Ready()
	require.NoError(t, err)
	assert.Empty(t, tags, "nothing written yet")
	start := time.Now()
	tags, err = s.Wait(time.Now().Add(50 * time.Millisecond))
	require.NoError(t, err)
	assert.Empty(t, tags, "the deadline passed")
	assert.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond)

	_, err = unix.Write(w2, []byte("x"))
	require.NoError(t, err)
	tags, err = s.Ready()
	require.NoError(t, err)
	assert.Equal(t, []int32{2}, tags)

	// A wait ends when data comes, not at its deadline.
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = unix.Write(w1, []byte("y"))
	}()
	var buf [1]byte
	_, err = unix.Read(r2, buf[:])
	require.NoError(t, err)
	start = time.Now()
	tags, err = s.Wait(time.Now().Add(5 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, []int32{1}, tags)
	assert.Less(t, time.Since(start), 4*time.Second)

	// Removed, a descriptor is not reported; added again, it is.
	require.NoError(t, s.Remove(r1))
	tags, err = s.Ready()
	require.NoError(t, err)
	assert.Empty(t, tags)

	// A number reused by a new descriptor takes the new tag.
	require.NoError(t, s.Add(r1, 7))
	tags, err = s.Ready()
	require.NoError(t, err)
	assert.Equal(t, []int32{7}, tags)
	_, err = unix.Read(r1, buf[:])
	require.NoError(t, err)

	// Interrupt, from another goroutine, ends a wait at once, and every
	// later one.
	go func() {
		time.Sleep(20 * time.Millisecond)
		s.Interrupt()
	}()
	start = time.Now()
	tags, err = s.Wait(time.Now().Add(5 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, []int32{Interrupted}, tags)
	assert.Less(t, time.Since(start), 4*time.Second)
	tags, err = s.Wait(time.Now().Add(5 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, []int32{Interrupted}, tags, "still")
}

func TestSetDoesNotAllocate(t *testing.T) {
	s, _, w := oneWatched(t, 1)
	_, err := unix.Write(w, []byte("x"))
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = s.Ready()
		_, _ = s.Wait(time.Now().Add(time.Second))
	})
	assert.Zero(t, allocs)
}

// TestWaitEndsAtItsDeadline: a wait with nothing ready ends at its
// deadline, not before; a timer left armed by a wait that data ended is
// never reported as a tag.
func TestWaitEndsAtItsDeadline(t *testing.T) {
	s, r, w := oneWatched(t, 3)
	start := time.Now()
	tags, err := s.Wait(start.Add(5 * time.Millisecond))
	require.NoError(t, err)
	assert.Empty(t, tags)
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond)

	_, err = unix.Write(w, []byte("x"))
	require.NoError(t, err)
	tags, err = s.Wait(time.Now().Add(20 * time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, []int32{3}, tags, "data before the deadline")
	time.Sleep(30 * time.Millisecond) // the timer fires, unread
	tags, err = s.Ready()
	require.NoError(t, err)
	assert.Equal(t, []int32{3}, tags, "the timer is not a tag")
	var buf [1]byte
	_, err = unix.Read(r, buf[:])
	require.NoError(t, err)
	tags, err = s.Ready()
	require.NoError(t, err)
	assert.Empty(t, tags)
}
