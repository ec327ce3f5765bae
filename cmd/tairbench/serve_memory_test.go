package main

import (
	"bufio"
	"context"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// residentOf reads a process's resident set size from /proc.
func residentOf(t *testing.T, pid int) uint64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	require.NoError(t, err)
	pages, err := strconv.ParseUint(strings.Fields(string(raw))[1], 10, 64)
	require.NoError(t, err)
	return pages * uint64(os.Getpagesize())
}

// startServe starts the built binary's 'serve' on a free port with the
// extra flags, killed when the test ends; it returns the address and the
// process's PID.
func startServe(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	port := testenv.FreePort(t)
	cmd := exec.Command(binary(t), append([]string{"serve", "--port", strconv.Itoa(port)}, extra...)...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	waitListening(t, addr)
	return addr, cmd.Process.Pid
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string) {
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
}

// TestServeUnderAnnouncedBulks repeats the attack on 'tairbench serve'
// (the built binary, so that its own resident memory is measured): 50
// connections each announce a 60,000,000-byte bulk string and send 1 MB of
// it. The server's buffers grow with the data that arrives, not with what
// was announced, and the memory is handed back after the clients leave.
func TestServeUnderAnnouncedBulks(t *testing.T) {
	addr, pid := startServe(t)
	base := residentOf(t, pid)
	payload := []byte(strings.Repeat("x", 1<<20))
	var conns []net.Conn
	for i := 0; i < 50; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = c.Write(append([]byte("*1\r\n$60000000\r\n"), payload...))
		require.NoError(t, err)
	}
	time.Sleep(time.Second) // the server reads what was sent
	during := residentOf(t, pid)
	pending := testenv.InfoLine(t, addr, "INFO", "memory", "pending_request_bytes")
	reported := testenv.InfoLine(t, addr, "INFO", "memory", "used_memory_rss")
	t.Logf("resident %d MiB before, %d MiB during (INFO used_memory_rss %s, pending_request_bytes %s)", base>>20, during>>20, reported, pending)
	assert.Less(t, during, uint64(300<<20), "under 300 MB during the attack")
	rss, err := strconv.ParseUint(reported, 10, 64)
	require.NoError(t, err)
	assert.InEpsilon(t, float64(during), float64(rss), 0.25, "INFO reports the real resident size")
	for _, c := range conns {
		c.Close()
	}
	time.Sleep(10 * time.Second)
	after := residentOf(t, pid)
	t.Logf("resident %d MiB 10 s after the clients left", after>>20)
	assert.Less(t, after, uint64(150<<20), "under 150 MB 10 s after")
	left, err := strconv.ParseInt(testenv.InfoLine(t, addr, "INFO", "memory", "pending_request_bytes"), 10, 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, left, int64(64<<10), "every buffer was refunded (what is left is the INFO connection's own)")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, _ = c.Write([]byte("PING\r\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "+PONG\r\n", line, "the server still serves")
}

// TestServeUnderHostileQueries sends 'tairbench serve' (the built binary,
// --max-query-time 1s) four 10 MB TFT.SEARCH queries at once, eight 1 MB
// match queries of 140,000 terms at once, a wildcard, a fuzzy match, a
// fuzzy match of 200 words, a bool of 1,000 wildcards and terms
// aggregations over a vocabulary of 60,000 terms, and the amplifying
// TFT.MSEARCH and TVS.* requests: each is refused with the limit and flag
// that refused it, or answered within --max-query-time; the resident
// memory stays under 400 MB (one 10.8 MB query took 390 MB before the
// limits), and it is back within 2× of the loaded server's within 10 s of
// the clients leaving.
func TestServeUnderHostileQueries(t *testing.T) {
	addr, pid := startServe(t, "--max-query-time", "1s")
	ctx := context.Background()
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 16, ReadTimeout: 30 * time.Second})
	defer rdb.Close()
	word := loadVocabulary(t, rdb)
	base := residentOf(t, pid)

	peak := atomic.Uint64{}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r := residentOf(t, pid); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	query := func(words int) string {
		ws := make([]string, words)
		for i := range ws {
			ws[i] = word()
		}
		return `{"query":{"match":{"t":"` + strings.Join(ws, " ") + `"}}}`
	}
	huge, large := query(1_550_000), query(140_000)
	require.Greater(t, len(huge), 10<<20)
	require.Less(t, len(large), 1<<20)
	cases := []struct {
		name, body, refusal string
		times               int
	}{
		{"10 MB match", huge, "--max-query-bytes", 4},
		{"1 MB match of 140,000 terms", large, "--max-query-clauses", 8},
		{"wildcard over the vocabulary", `{"query":{"wildcard":{"t":"*1*"}}}`, "--max-query-expansions", 2},
		{"fuzzy over the vocabulary", `{"query":{"match":{"t":{"query":"w12345","fuzziness":2}}}}`, "", 2},
		{"a terms aggregation's size", `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":1000000}}}}`, "--max-query-buckets", 2},
		{"a terms aggregation over every document", `{"size":0,"aggs":{"a":{"terms":{"field":"k","size":65536}}}}`, "", 2},
		{"a fuzzy match of 200 words", fuzzyWords(200), "", 2},
		{"a bool of 1,000 wildcards", wildcardBool(1000), "", 2},
	}
	for _, c := range cases {
		var wg sync.WaitGroup
		errs := make([]error, c.times)
		began := time.Now()
		for i := 0; i < c.times; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = rdb.Do(ctx, "TFT.SEARCH", "idx", c.body).Err()
			}()
		}
		wg.Wait()
		assert.Less(t, time.Since(began), 3*time.Second, "%s: refused, or answered within --max-query-time 1s (%d at once)", c.name, c.times)
		for _, err := range errs {
			if c.refusal == "" {
				if err != nil { // answered, or refused by a limit that names its flag
					assert.Contains(t, err.Error(), "tairbench serve --max-query-", c.name)
				}
				continue
			}
			require.Error(t, err, c.name)
			assert.Contains(t, err.Error(), c.refusal, c.name)
		}
	}
	for name, args := range amplifying() {
		err := rdb.Do(ctx, args...).Err()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "(tairbench serve --max-query-memory)", name)
	}
	close(stop)
	<-sampled
	rdb.Close()
	t.Logf("resident %d MiB loaded, %d MiB at the peak", base>>20, peak.Load()>>20)
	assert.Less(t, peak.Load(), uint64(400<<20), "under 400 MB through the hostile queries")
	var after uint64
	assert.Eventually(t, func() bool {
		after = residentOf(t, pid)
		return after <= 2*base
	}, 10*time.Second, 100*time.Millisecond, "within 2× of the loaded server's resident memory 10 s after")
	t.Logf("resident %d MiB after the clients left", after>>20)
	assert.Equal(t, "PONG", testenv.Do(t, addr, "PING"), "the server still serves")
}

// loadVocabulary fills the index idx with 20,000 documents of 20 words
// drawn from 60,000, and the vector index v with one vector; it returns
// the word drawer.
func loadVocabulary(t *testing.T, rdb *goredis.Client) func() string {
	ctx := context.Background()
	require.NoError(t, rdb.Do(ctx, "TFT.CREATEINDEX", "idx", `{"mappings":{"properties":{"t":{"type":"text"},"k":{"type":"keyword"}}}}`).Err())
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return "w" + strconv.Itoa(rng.IntN(60000)) }
	pipe := rdb.Pipeline()
	for d := 0; d < 20000; d++ {
		words := make([]string, 20)
		for i := range words {
			words[i] = word()
		}
		pipe.Do(ctx, "TFT.ADDDOC", "idx", `{"t":"`+strings.Join(words, " ")+`","k":"`+word()+`"}`, "WITH_ID", "d"+strconv.Itoa(d))
	}
	pipe.Do(ctx, "TVS.CREATEINDEX", "v", 2, "HNSW", "L2")
	pipe.Do(ctx, "TVS.HSET", "v", "k1", "VECTOR", "[1,2]")
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	return word
}

// fuzzyWords is a fuzzy match of n words (distance 2) over the vocabulary.
func fuzzyWords(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = "w" + strconv.Itoa(10000+i*37)
	}
	return `{"query":{"match":{"t":{"query":"` + strings.Join(ws, " ") + `","fuzziness":2}}}}`
}

// wildcardBool is a bool of n wildcard clauses over the vocabulary.
func wildcardBool(n int) string {
	cs := make([]string, n)
	for i := range cs {
		cs[i] = `{"wildcard":{"t":"*` + strconv.Itoa(i%10) + `*` + strconv.Itoa(i/10%10) + `*"}}`
	}
	return `{"query":{"bool":{"should":[` + strings.Join(cs, ",") + `]}}}`
}

// amplifying are requests of a few kilobytes that would keep gigabytes:
// an index named 1,000 times with size 20,000, 3,000 query vectors of
// topN 10,000, an index named 5,000 times.
func amplifying() map[string][]any {
	repeat := func(args []any, v any, n int, tail ...any) []any {
		for range n {
			args = append(args, v)
		}
		return append(args, tail...)
	}
	return map[string][]any{
		"TFT.MSEARCH of 1,000 indexes":         repeat([]any{"TFT.MSEARCH", 1000}, "idx", 1000, `{"size":20000,"query":{"match_all":{}}}`),
		"TVS.MKNNSEARCH of 3,000 vectors":      repeat([]any{"TVS.MKNNSEARCH", "v", 10000, 3000}, "[1,2]", 3000),
		"TVS.MINDEXKNNSEARCH of 5,000 indexes": repeat([]any{"TVS.MINDEXKNNSEARCH", 5000}, "v", 5000, 10000, "[1,2]"),
	}
}

// TestServeEndsOnSIGINTWhileQueriesRun: 'tairbench serve' (the built
// binary, --max-query-time 1m) exits within a second of SIGINT while a
// bool of 1,000 wildcards, seconds of work, runs.
func TestServeEndsOnSIGINTWhileQueriesRun(t *testing.T) {
	port := testenv.FreePort(t)
	cmd := exec.Command(binary(t), "serve", "--port", strconv.Itoa(port), "--max-query-time", "1m", "--max-query-expansions", "1000000")
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	waitListening(t, addr)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, ReadTimeout: time.Minute, MaxRetries: -1})
	defer rdb.Close()
	loadVocabulary(t, rdb)
	answered := make(chan error, 1)
	go func() { answered <- rdb.Do(context.Background(), "TFT.SEARCH", "idx", wildcardBool(1000)).Err() }()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-answered:
		t.Fatalf("the query ended before SIGINT: %v", err)
	default: // running
	}
	signalled := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	select {
	case <-exited:
		assert.Less(t, time.Since(signalled), time.Second)
	case <-time.After(5 * time.Second):
		t.Fatal("serve still running 5 s after SIGINT")
	}
}
