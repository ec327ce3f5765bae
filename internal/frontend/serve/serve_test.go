package serve

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
)

func TestRefusesBadOptions(t *testing.T) {
	cases := map[string]func(*Options){
		"--max-clients must be at least 1":       func(o *Options) { o.MaxClients = 0 },
		"--max-query-clauses must be at least 1": func(o *Options) { o.Search.MaxClauses = 0 },
		`--user "nopass": want NAME:PASSWORD`:    func(o *Options) { o.Users = []string{"nopass"} },
		`--user "default:x"`:                     func(o *Options) { o.Users = []string{"default:x"} },
	}
	for want, edit := range cases {
		o := Defaults()
		o.Bind, o.MaxClients, o.MaxRequest, o.MaxPending, o.MaxQueryBytes, o.MaxQueryMemory = "127.0.0.1", 10, 1<<20, 1<<20, 1<<20, 1<<20
		edit(&o)
		err := Run(context.Background(), o, harness.IO{Err: &bytes.Buffer{}})
		assert.ErrorContains(t, err, want)
	}
}

// TestServesUntilCancelled: the server listens on a free port, takes an
// account, and stops when its context ends.
func TestServesUntilCancelled(t *testing.T) {
	o := Defaults()
	o.Bind, o.MaxClients, o.MaxRequest, o.MaxPending, o.MaxQueryBytes, o.MaxQueryMemory = "127.0.0.1", 10, 1<<20, 1<<20, 1<<20, 1<<20
	o.Users = []string{"app:pw"}
	ctx, cancel := context.WithCancel(context.Background())
	errb := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, harness.IO{Err: errb}) }()
	var addr string
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(errb.String())
		if m != nil {
			addr = m[1]
		}
		return addr != ""
	}, 10*time.Second, 10*time.Millisecond)
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	_, err = c.Write([]byte("*3\r\n$4\r\nAUTH\r\n$3\r\napp\r\n$2\r\npw\r\n"))
	require.NoError(t, err)
	reply := make([]byte, 5)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Read(reply)
	require.NoError(t, err)
	assert.Equal(t, "+OK\r\n", string(reply))
	_ = c.Close()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context ended")
	}
}

// syncBuffer is a buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
