package engine

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sleep whose timer expires before the goroutine parks still returns:
// thousands of sleeps of 0 to 50 µs on several goroutines, none hangs,
// and none returns early.
func TestSleeperShortSleepsReturn(t *testing.T) {
	var wg sync.WaitGroup
	early := make(chan time.Duration, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSleeper()
			defer s.close()
			require.NotNil(t, s.raw, "timerfd")
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := 0; i < 2000; i++ {
				d := time.Duration(rng.IntN(50_000)) + 1
				t0 := time.Now()
				s.sleep(d)
				if got := time.Since(t0); got < d {
					early <- d - got
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a sleep never returned")
	}
	close(early)
	for d := range early {
		assert.Fail(t, "a sleep returned early", "by %s", d)
	}
}
