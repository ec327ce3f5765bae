package redis

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

func embedded(t *testing.T) (*server.Server, endpoint.Target) {
	t.Helper()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv, endpoint.Target{Addr: srv.Addr(), Timeout: 2 * time.Second}
}

// worker compiles tmpl (with __RAND__ walking 0, 1, 2, … below r1) and
// connects one worker.
func worker(t *testing.T, tg endpoint.Target, tmpl string, r1 uint64, batching, pipeline int) engine.Worker {
	t.Helper()
	var opts cmdtmpl.Options
	opts.Ranges[1] = cmdtmpl.Range{Max: r1, Dist: cmdtmpl.Seq}
	opts.Ranges[2] = cmdtmpl.Range{Max: 1}
	w, err := TemplateSpec{Template: tmpl, Options: opts, Batching: batching, Pipeline: pipeline}.Workload()
	require.NoError(t, err)
	wk, err := (&Factory{Target: tg, Workload: w}).NewWorker(context.Background(), 0, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = wk.Close() })
	return wk
}

func step(t *testing.T, w engine.Worker) (engine.Step, error) {
	t.Helper()
	var s engine.Step
	w.Prepare()
	err := w.Exec(context.Background(), &s)
	return s, err
}

func TestExecAbortCountsEveryCommand(t *testing.T) {
	_, tg := embedded(t)
	w := worker(t, tg, "NOSUCHCOMMAND k-__RAND__", 10, 5, 0)
	s, err := step(t, w)
	require.NoError(t, err)
	assert.Equal(t, 5, s.Ops)
	assert.Equal(t, 5, s.Failed, "nothing of an aborted transaction ran")
	assert.True(t, s.Aborted)
	assert.Contains(t, string(s.Err), "unknown command")
}

func TestExecReplyErrorsInsideTransaction(t *testing.T) {
	_, tg := embedded(t)
	require.NoError(t, doOnce(tg, "TR.SETBIT", "1", "0", "1"))
	// GET 0, GET 1 (a bitmap: WRONGTYPE at run time), GET 2: the batch runs.
	w := worker(t, tg, "GET __RAND__", 3, 3, 0)
	s, err := step(t, w)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Ops)
	assert.Equal(t, 1, s.Failed)
	assert.False(t, s.Aborted)
	assert.Contains(t, string(s.Err), "WRONGTYPE")
}

func TestPipelineErrorInTheMiddle(t *testing.T) {
	_, tg := embedded(t)
	require.NoError(t, doOnce(tg, "TR.SETBIT", "1", "0", "1"))
	w := worker(t, tg, "GET __RAND__", 3, 0, 3)
	for i := 0; i < 3; i++ { // the replies stay aligned from one pipeline to the next
		s, err := step(t, w)
		require.NoError(t, err)
		assert.Equal(t, 3, s.Ops)
		assert.Equal(t, 1, s.Failed)
		assert.Contains(t, string(s.Err), "WRONGTYPE")
	}
}

func TestNilExecIsAnAbort(t *testing.T) {
	// The embedded server has no WATCH, so a scripted server answers the
	// transaction with a nil EXEC, as Redis does when a watched key changed.
	addr := scripted(t, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*-1\r\n")
	w := worker(t, endpoint.Target{Addr: addr, Timeout: 2 * time.Second}, "SET k v", 1, 2, 0)
	s, err := step(t, w)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Ops)
	assert.Equal(t, 2, s.Failed)
	assert.True(t, s.Aborted)
	assert.Contains(t, string(s.Err), "EXEC returned nil")
}

func TestReconnectsAfterTheServerComesBack(t *testing.T) {
	srv, tg := embedded(t)
	w := worker(t, tg, "SET k-__RAND__ v", 100, 0, 0)
	_, err := step(t, w)
	require.NoError(t, err)

	require.NoError(t, srv.Close())
	_, err = step(t, w)
	require.Error(t, err, "the connection is gone")
	_, err = step(t, w)
	require.Error(t, err, "nothing listens")
	assert.Contains(t, err.Error(), "connection refused")

	again, err := server.Start(server.Config{Addr: tg.Addr})
	require.NoError(t, err)
	t.Cleanup(func() { _ = again.Close() })
	s, err := step(t, w)
	require.NoError(t, err, "the worker dials again")
	assert.Equal(t, 1, s.Ops)
	assert.Zero(t, s.Failed)
}

func TestTairAuthFallback(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Password: "user:secret"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	tg := endpoint.Target{Addr: srv.Addr(), Auth: "user:secret", Timeout: 2 * time.Second}
	resolved, err := transport.ResolveLogin(context.Background(), tg)
	require.NoError(t, err)
	assert.Equal(t, endpoint.AuthTair, resolved.AuthForm, "the ACL form is refused, Tair's single argument works")
	c, err := transport.NewClient(context.Background(), tg, 1)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Ping(context.Background()).Err())
}

// doOnce runs one command on a fresh connection.
func doOnce(tg endpoint.Target, args ...string) error {
	c, err := transport.Dial(context.Background(), tg)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.DoString(args...)
	return err
}

// scripted serves one connection: it reads until the client has sent its
// request and answers with reply.
func scripted(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		var got strings.Builder
		for !strings.Contains(got.String(), "EXEC") {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			got.WriteString(line)
		}
		_, _ = c.Write([]byte(reply))
		_, _ = r.ReadString('\n') // hold the connection until the client closes it
	}()
	return ln.Addr().String()
}

// TestRawWorkerDoesNotAllocate: once warm, a request of the standalone
// hot path (WriteRead through the poller, then the pipeline's other
// replies) allocates nothing, against a real redis-server.
func TestRawWorkerDoesNotAllocate(t *testing.T) {
	r := testenv.StartRedis(t)
	for _, pipeline := range []int{0, 16} {
		w := worker(t, endpoint.Target{Addr: r.Addr, Timeout: 5 * time.Second}, "SET k-__RAND__ v", 1000, 0, pipeline)
		var s engine.Step
		req := func() {
			s = engine.Step{}
			w.Prepare()
			require.NoError(t, w.Exec(context.Background(), &s))
		}
		for range 200 {
			req()
		}
		assert.Zero(t, testing.AllocsPerRun(500, req), "pipeline %d", pipeline)
		assert.Zero(t, s.Failed)
	}
}
