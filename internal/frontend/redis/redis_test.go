package redis

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// base is a small closed-loop run on the embedded server.
func base(t *testing.T) Options {
	tg, err := target.Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	return Options{Options: common.Options{Embedded: true, NoServerStats: true}, Target: tg, Commands: []string{"SET k-__RAND__ __DATA__"}, Parallel: 2,
		Count: 2000, CountGiven: true, R1: 100, R2: 100, DataSize: 8, Arrivals: ArrivalsConstant,
		Out: output.Outputs{Quiet: true}}
}

func TestRefusedOptions(t *testing.T) {
	cases := []struct {
		edit func(*Options)
		err  string
	}{
		{func(o *Options) { o.Parallel = 0 }, "-p must be at least 1"},
		{func(o *Options) { o.Pipeline, o.PipelineGiven = 0, true }, "-P must be at least 1"},
		{func(o *Options) { o.Batching, o.BatchingGiven = 0, true }, "-batching must be at least 1"},
		{func(o *Options) { o.Window = -1 }, "-window must not be negative"},
		{func(o *Options) { o.Window, o.Pipeline = 4, 2 }, "cannot be combined with -P or -batching"},
		{func(o *Options) { o.Window, o.SendGrid = 4, time.Millisecond }, "leave --send-grid out"},
		{func(o *Options) { o.SendGrid = 2 * time.Second }, "--send-grid 2s: want 0"},
		{func(o *Options) { o.Arrivals = "bursty" }, "--arrivals must be constant or poisson"},
		{func(o *Options) { o.R1 = 0 }, "-r and -r2 must be above 0"},
		{func(o *Options) { o.Rands = []string{"10=5"} }, `--rand "10=5": want N=SIZE[:dist]`},
		{func(o *Options) { o.Rands = []string{"3=5:gauss"} }, "unknown distribution"},
		{func(o *Options) { o.DataSize = -1 }, "--data-size must not be negative"},
		{func(o *Options) { o.Commands = []string{"GET a", "GET b"}; o.Ratio = "1:2:3" }, "has 3 weights for 2 -command templates"},
		{func(o *Options) { o.Commands = []string{"GET a", "GET b"}; o.Ratio = "1:x" }, "weights are whole numbers"},
		{func(o *Options) { o.Commands = []string{"GET a", "GET b"}; o.Ratio = "0:0" }, "add up to 0"},
		{func(o *Options) { o.Commands = []string{`SET "a`} }, `bad -command`},
		{func(o *Options) { o.Count, o.CountGiven, o.Duration = 0, false, 0 }, "need -d above 0 or -c above 0"},
		{func(o *Options) { o.Count = -1 }, "-c must not be negative"},
	}
	for _, c := range cases {
		o := base(t)
		c.edit(&o)
		io, _, _ := harness.Captured("test")
		_, err := Run(context.Background(), o, io)
		assert.ErrorContains(t, err, c.err)
	}
}

func TestMixOfAndTemplateOptions(t *testing.T) {
	mix, err := mixOf([]string{"GET a", "SET a v"}, "1:3")
	require.NoError(t, err)
	require.Len(t, mix, 2)
	assert.Equal(t, 3, mix[1].Weight)
	assert.Equal(t, "1× GET a | 3× SET a v", describeMix([]string{"GET a", "SET a v"}, mix))
	mix, err = mixOf([]string{"GET a"}, "")
	require.NoError(t, err)
	assert.Nil(t, mix, "one template is no mix")

	o := base(t)
	o.Rands = []string{"3=1000:zipf", "4=10:seq"}
	opts, err := templateOptions(o)
	require.NoError(t, err)
	assert.Equal(t, cmdtmpl.Zipf, opts.Ranges[3].Dist)
	assert.Equal(t, uint64(10), opts.Ranges[4].Max)
	assert.Equal(t, 8, opts.DataSize)
}

// TestRunsOnTheEmbeddedServer: a closed-loop count, a mix with its
// operations, a pipeline and an open loop, each with its result file.
func TestRunsOnTheEmbeddedServer(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		edit func(*Options)
		want func(*testing.T, *result.Run)
	}{
		{"count", func(*Options) {}, func(t *testing.T, r *result.Run) {
			assert.Equal(t, int64(2000), r.Totals.Ops)
			assert.Zero(t, r.Totals.Errors)
		}},
		{"mix", func(o *Options) { o.Commands, o.Ratio = []string{"SET k-__RAND__ v", "GET k-__RAND__"}, "1:3" }, func(t *testing.T, r *result.Run) {
			require.Len(t, r.Operations, 2)
			assert.InDelta(t, 0.75, float64(r.Operations[1].Ops)/float64(r.Totals.Ops), 0.05, "GET is 3 of 4")
		}},
		{"pipeline", func(o *Options) { o.Pipeline, o.PipelineGiven = 8, true }, func(t *testing.T, r *result.Run) {
			assert.Equal(t, int64(2000), r.Totals.Ops)
			assert.Equal(t, int64(250), r.Totals.Requests, "8 commands a request")
		}},
		{"open loop", func(o *Options) {
			o.Count, o.CountGiven, o.Duration, o.Rate = 0, false, 2*time.Second, 500
		}, func(t *testing.T, r *result.Run) {
			require.NotNil(t, r.Totals.Schedule)
			assert.InDelta(t, 1000, r.Totals.Requests, 100)
			assert.NotEmpty(t, r.HistogramCorrected, "latency from the intended start")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base(t)
			o.JSON = filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
			c.edit(&o)
			io, out, _ := harness.Captured("test")
			r, err := Run(context.Background(), o, io)
			require.NoError(t, err)
			c.want(t, r)
			assert.Contains(t, out.String(), "embedded server, not Tair", "the summary names the target")
			doc, err := result.ReadFile(o.JSON)
			require.NoError(t, err)
			assert.Equal(t, r.Totals.Ops, doc.(*result.Run).Totals.Ops, "the file holds the run")
		})
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	o := base(t)
	o.DryRun, o.Preload = true, true
	o.Commands = []string{"GET k-__RAND__"}
	io, out, _ := harness.Captured("test")
	r, err := Run(context.Background(), o, io)
	require.NoError(t, err)
	assert.Nil(t, r)
	assert.Contains(t, out.String(), "dry run")
	assert.Contains(t, out.String(), "would start in this process; not Tair")
	assert.Contains(t, out.String(), "SET k-__RAND__ __DATA__", "the preload's write")
}

func TestPlanPreload(t *testing.T) {
	o := base(t)
	o.Commands = []string{"TR.GETBIT foo-__RAND__ __RAND2__", "SET x __DATA__"}
	opts, err := templateOptions(o)
	require.NoError(t, err)
	plans, err := planPreload(o, opts)
	require.NoError(t, err)
	require.Len(t, plans, 1, "the write needs no fill")
	assert.Equal(t, "TR.SETRANGE foo-__RAND__ 0 99", plans[0].template)
	assert.Equal(t, int64(100), plans[0].keys)
	o.Commands = []string{"ZSCORE z m"}
	_, err = planPreload(o, opts)
	assert.ErrorContains(t, err, "--preload does not know how to fill the keys of ZSCORE")
	o.Commands = []string{"SET a b"}
	_, err = planPreload(o, opts)
	assert.ErrorContains(t, err, "nothing to fill")
}

// TestAnHTTPServerIsNamed: a run aimed at an HTTP server stops before it
// starts, with one line that says so; an HTML answer without a status
// line (HTTP/0.9) is named alike.
func TestAnHTTPServerIsNamed(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("<!DOCTYPE HTML>\n<html>\n"))
			_ = c.Close()
		}
	}()
	for _, addr := range []string{strings.TrimPrefix(srv.URL, "http://"), ln.Addr().String()} {
		o := base(t)
		o.Embedded = false
		tg, err := target.Options{Host: addr, Protocol: 2, Timeout: 2 * time.Second}.Build()
		require.NoError(t, err)
		o.Target = tg
		io, _, _ := harness.Captured("test")
		_, err = Run(context.Background(), o, io)
		require.Error(t, err)
		assert.Contains(t, err.Error(), addr+": this is an HTTP server, not Redis (it answered ")
		assert.Contains(t, err.Error(), "the run did not start")
		assert.NotContains(t, err.Error(), "\n", "one line")
	}
}

// TestAnotherClientIsNamed: a second client sending the same command
// beside the run is named as the cause of the server's larger count (the
// run's own samples see it), not left "unexplained".
func TestAnotherClientIsNamed(t *testing.T) {
	r := testenv.StartRedis(t)
	other, err := net.Dial("tcp", r.Addr)
	require.NoError(t, err)
	defer other.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // INCR c, ten at a time, until the run ends
		defer close(done)
		batch := []byte(strings.Repeat("*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n", 10))
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := other.Write(batch); err != nil {
				return
			}
			for got := 0; got < 10; {
				n, err := other.Read(buf)
				if err != nil {
					return
				}
				got += strings.Count(string(buf[:n]), "\r\n")
			}
		}
	}()
	o := base(t)
	o.Embedded, o.NoServerStats = false, false
	tg, err := target.Options{Host: r.Addr, Protocol: 2, Timeout: 2 * time.Second}.Build()
	require.NoError(t, err)
	o.Target, o.Commands, o.Count, o.CountGiven, o.Duration = tg, []string{"INCR c"}, 0, false, 2500*time.Millisecond
	io, _, _ := harness.Captured("test")
	res, err := Run(context.Background(), o, io)
	close(stop)
	<-done
	require.NoError(t, err)
	require.NotNil(t, res.Server)
	rc := res.Server.Reconciliation
	require.NotNil(t, rc)
	assert.Greater(t, rc.Server, rc.Client, "the other client's INCRs count on the server")
	require.NotEmpty(t, rc.Causes)
	assert.Contains(t, rc.Causes[0], "other clients: up to ")
}

// TestWorkloadFile: a workload file's operations run with their own
// ranges and sizes, at a multiple of its rate, on its connections; what
// it cannot be combined with is refused.
func TestWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`format: tairbench.workload/v1
rate: 500
connections: 3
operations:
  - {name: get, command: GET w-__RAND__, weight: 3, ranges: {1: {size: 10}}}
  - {name: set, command: SET w-__RAND__ __DATA__, weight: 1, ranges: {1: {size: 10}}, data_size: 5}
`), 0o644))
	o := base(t)
	o.Workload, o.RateTimes, o.Count, o.CountGiven, o.Duration = path, 2, 0, false, time.Second
	io, _, errb := harness.Captured("test")
	res, err := Run(context.Background(), o, io)
	require.NoError(t, err, errb.String())
	assert.Contains(t, errb.String(), "3 connections")
	assert.Equal(t, 3, res.Config.Connections)
	require.NotNil(t, res.Totals.Schedule)
	assert.InDelta(t, 1000, res.Totals.Schedule.Rate, 1, "2x the file's 500/s")
	require.Len(t, res.Operations, 2)
	assert.Equal(t, "get", res.Operations[0].Name)

	for _, c := range []struct {
		edit func(*Options)
		err  string
	}{
		{func(o *Options) { o.TemplateFlags = []string{"-command", "-r"} }, "-command, -r cannot be combined with it"},
		{func(o *Options) { o.Preload = true }, "--preload cannot be combined with --workload"},
		{func(o *Options) { o.Workload = filepath.Join(dir, "none.yaml") }, "no such file"},
		{func(o *Options) { o.Workload = "" }, "--rate 2x is a multiple of a workload's rate"},
	} {
		o := base(t)
		o.Workload, o.RateTimes = path, 2
		c.edit(&o)
		io, _, _ := harness.Captured("test")
		_, err := Run(context.Background(), o, io)
		assert.ErrorContains(t, err, c.err)
	}
}
