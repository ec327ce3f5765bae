package tmplrun

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// ranges are options whose __RAND__ draws below n.
func ranges(n uint64, size int) cmdtmpl.Options {
	o := cmdtmpl.Options{DataSize: size}
	o.Ranges[1].Max, o.Ranges[2].Max = n, n
	return o
}

// spec compiles ts and makes its run against t.
func spec(t *testing.T, ts redis.TemplateSpec, tg endpoint.Target, cfg engine.Config) run.Spec {
	t.Helper()
	w, err := ts.Workload()
	require.NoError(t, err)
	return FromTemplate(ts, "test", "v0", tg, w, cfg)
}

// TestFromTemplate: what the spec says of the template, for one command
// and a mix, standalone and on a cluster.
func TestFromTemplate(t *testing.T) {
	opts := ranges(100, 8)
	mix := []redis.MixEntry{{Template: "GETBIT k-__RAND__ 7", Weight: 1}, {Template: "GET k-__RAND__", Weight: 3}}
	tests := []struct {
		name       string
		ts         redis.TemplateSpec
		cluster    bool
		command    string
		ops        []string
		reconcile  []string
		sampled    bool
		pipeline   int
		hiddenMiss []bool
	}{
		{"one command", redis.TemplateSpec{Template: "GET k-__RAND__", Options: opts, ServerStats: true},
			false, "GET k-__RAND__", nil, []string{"get"}, true, 1, nil},
		{"a mix", redis.TemplateSpec{Mix: mix, Options: opts, ServerStats: true},
			false, "GETBIT k-__RAND__ 7 | GET k-__RAND__", []string{"GETBIT", "GET"}, []string{"getbit", "get"}, true, 1, []bool{true, false}},
		{"a pipeline without server statistics", redis.TemplateSpec{Template: "INCR c", Options: opts, Pipeline: 8},
			false, "INCR c", nil, nil, false, 8, nil},
		{"a cluster samples no node", redis.TemplateSpec{Template: "GET k-__RAND__", Options: opts, ServerStats: true},
			true, "GET k-__RAND__", nil, nil, false, 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t, tc.ts, endpoint.Target{Addr: "127.0.0.1:6379", Cluster: tc.cluster}, engine.Config{Workers: 2})
			assert.Equal(t, tc.command, s.Command)
			assert.Equal(t, tc.ops, s.Engine.Operations)
			assert.Equal(t, tc.pipeline, s.Engine.OpsPerRequest)
			assert.Equal(t, tc.reconcile, s.Reconcile)
			assert.Equal(t, tc.sampled, s.Sampler != nil)
			require.NotNil(t, s.Config.Template)
			assert.Equal(t, tc.ts.Pipeline, s.Config.Template.Pipeline)
			var hidden []bool
			for _, o := range s.Operations {
				hidden = append(hidden, o.MissesHidden)
			}
			assert.Equal(t, tc.hiddenMiss, hidden, "a GETBIT's 0 reads alike for a missing key; a GET's null shows it")
			assert.NotNil(t, s.Identify)
			assert.Equal(t, tc.cluster, s.Routing != nil, "routing (and no client-count check) on a cluster only")
		})
	}
}

// TestRunsOnTheEmbeddedServer: the spec runs, the server is named as
// tairbench's own, its count agrees with the client's, and a standalone
// target has no cluster routing.
func TestRunsOnTheEmbeddedServer(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	tg := endpoint.Target{Addr: srv.Addr(), Timeout: 5 * time.Second}
	ts := redis.TemplateSpec{Template: "SET k-__RAND__ __DATA__", Options: ranges(1000, 16), ServerStats: true}
	s := spec(t, ts, tg, engine.Config{Workers: 2, Ops: 2000, Seed: 1})
	s.Config.Target = tg.Result()
	res, err := run.Run(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, int64(2000), res.Totals.Ops)
	assert.Zero(t, res.Totals.Errors)
	require.NotNil(t, res.Config.Target.Server)
	assert.True(t, res.Config.Target.Server.Embedded, "the target said it is tairbench's embedded server")
	assert.Nil(t, res.Cluster, "a standalone target: no routing")
	require.NotNil(t, res.Server)
	require.NotNil(t, res.Server.Reconciliation)
	assert.Equal(t, res.Server.Reconciliation.Client, res.Server.Reconciliation.Server, "the server counted every SET the client did")
}
