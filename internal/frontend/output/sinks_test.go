package output_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/memtier"
	"github.com/tairbench/tairbench/internal/frontend/output"
	redisfront "github.com/tairbench/tairbench/internal/frontend/redis"
	"github.com/tairbench/tairbench/internal/frontend/redisbenchmark"
	"github.com/tairbench/tairbench/internal/frontend/roaring"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/frontend/track"
	"github.com/tairbench/tairbench/internal/frontend/vector"
	"github.com/tairbench/tairbench/internal/frontend/ycsb"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// recorder is a sink that records what it is handed.
type recorder struct {
	mu     sync.Mutex
	begun  []run.Labels
	ticks  int
	finals []*result.Run
	docs   []string
}

type recorded struct{ r *recorder }

func (r *recorder) Begin(l run.Labels) run.Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begun = append(r.begun, l)
	return recorded{r}
}

func (s recorded) Observe(stats.Progress) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.ticks++
}

// Document records the command's result document, as JSON: the form
// the result file holds.
func (r *recorder) Document(doc any) error {
	var b bytes.Buffer
	if err := result.EncodeJSON(&b, doc); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.docs = append(r.docs, b.String())
	return nil
}

func (s recorded) Final(res *result.Run) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	cp := *res
	s.r.finals = append(s.r.finals, &cp)
}

// runsIn finds every run a result document holds, however deep.
func runsIn(v reflect.Value, out *[]*result.Run) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if r, ok := v.Interface().(*result.Run); ok {
			*out = append(*out, r)
			return
		}
		runsIn(v.Elem(), out)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				runsIn(v.Field(i), out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			runsIn(v.Index(i), out)
		}
	}
}

// embedded is the embedded server as every front-end's target.
var embedded = target.Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Timeout: 10 * time.Second, Embedded: true}

// TestSinkSeesWhatTheResultFileHolds: a sink carried by the context
// alone, named by no front-end, is handed every run each front-end
// measures, with the figures its JSON result holds.
func TestSinkSeesWhatTheResultFileHolds(t *testing.T) {
	tg, err := embedded.Build()
	require.NoError(t, err)
	cases := []struct {
		name string
		run  func(ctx context.Context, json string, io harness.IO) error
	}{
		{"redis", func(ctx context.Context, json string, io harness.IO) error {
			_, err := redisfront.Run(ctx, redisfront.Options{Options: common.Options{Embedded: true, JSON: json}, Target: tg, Commands: []string{"SET k-__RAND__ __DATA__"},
				Parallel: 2, Duration: 1500 * time.Millisecond, R1: 1000, R2: 1000, DataSize: 16, Arrivals: redisfront.ArrivalsConstant,
				Out: output.Outputs{Quiet: true}}, io)
			return err
		}},
		{"memtier", func(ctx context.Context, json string, io harness.IO) error {
			args := []string{"--embedded", "-n", "300", "-c", "2", "-t", "1", "--key-maximum", "1000", "--hide-histogram", "--json", json}
			o, err := memtier.Parse(args)
			require.NoError(t, err)
			_, err = memtier.Run(ctx, o, args, io)
			return err
		}},
		{"redis-benchmark", func(ctx context.Context, json string, io harness.IO) error {
			args := []string{"--embedded", "-t", "set,get", "-n", "2000", "-q", "--json", json}
			o, err := redisbenchmark.Parse(args, io.Err)
			require.NoError(t, err)
			_, err = redisbenchmark.Run(ctx, o, args, io)
			return err
		}},
		{"ycsb", func(ctx context.Context, json string, io harness.IO) error {
			args := []string{"load", "redis", "-s", "-P", "workloads/workloada", "-p", "recordcount=500", "-p", "redis.command_group=string", "-threads", "2", "--embedded", "--json", json}
			c, err := ycsb.Parse(args)
			require.NoError(t, err)
			_, err = ycsb.Run(ctx, c, args, io)
			return err
		}},
		{"search run", func(ctx context.Context, json string, io harness.IO) error {
			own := common.Defaults()
			own.Embedded, own.Seed, own.JSON = true, 1, json
			return track.Main(ctx, track.Words{Options: own, Server: embedded, Run: track.Options{Track: "whitepaper", Docs: 300, Iterations: 30,
				MaxDivergence: -1, Samples: 2, Quiet: true}}, io)
		}},
		{"vector", func(ctx context.Context, json string, io harness.IO) error {
			own := common.Defaults()
			own.Embedded, own.Seed, own.JSON = true, 1, json
			return vector.Main(ctx, vector.Words{Options: own, Server: embedded, Engines: "tairvector", Index: "sink-test",
				Data:      vector.DataSpec{Data: "clustered", N: 400, NQ: 20, Dims: 8, Centres: 10, Metric: "L2", K: 10},
				Algorithm: "HNSW", M: 16, EfConstruct: 100, EfSearch: "10,40", NumCandidates: "10", Connections: 2, LoadConnections: 2,
				Batch: 50, Duration: 300 * time.Millisecond}, io)
		}},
		{"roaring suite", func(ctx context.Context, json string, io harness.IO) error {
			return roaring.Main(ctx, roaring.Options{Server: embedded, Filter: "single-write/setbit", CasesGiven: true, JSON: json,
				CaseOptions: roaring.CaseOptions{CaseDuration: time.Second, Seed: 1, SetOpData: roaring.SetOpRandom}}, io)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			ctx := output.WithDocumentSinks(run.WithSinks(context.Background(), rec), rec)
			path := filepath.Join(t.TempDir(), "result.json")
			var stderr bytes.Buffer
			require.NoError(t, c.run(ctx, path, harness.IO{Out: io.Discard, Err: &stderr, In: bytes.NewReader(nil), Version: "test"}), stderr.String())
			doc, err := result.ReadFile(path)
			require.NoError(t, err)
			file, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Len(t, rec.docs, 1, "the document sink was handed the command's document once")
			assert.Equal(t, string(file), rec.docs[0], "the document sink holds what the result file does")
			var inFile []*result.Run
			runsIn(reflect.ValueOf(doc), &inFile)
			require.NotEmpty(t, rec.finals, "the sink was handed no run")
			require.Len(t, rec.begun, len(rec.finals), "every run begun is finished")
			if c.name == "redis" {
				assert.Positive(t, rec.ticks, "a 1.5 s run's ticks reach the sink")
			}
			for i, got := range rec.finals {
				assert.Equal(t, "tairbench embedded server, not Tair", rec.begun[i].Server, "the sink is told the target is ours")
				var match *result.Run
				for _, r := range inFile {
					if r.Histogram == got.Histogram && r.StartedAt.Equal(got.StartedAt) {
						match = r
					}
				}
				if !assert.NotNil(t, match, "run %d (%s) handed to the sink is not in the result file", i, got.Name) {
					continue
				}
				assert.Equal(t, match.Totals.Ops, got.Totals.Ops, "%s: commands", got.Name)
				assert.Equal(t, match.Totals.Errors, got.Totals.Errors, "%s: errors", got.Name)
				assert.Equal(t, match.Totals.OpsPerSec, got.Totals.OpsPerSec, "%s: rate", got.Name)
				assert.Equal(t, match.Series, got.Series, "%s: per-second series", got.Name)
			}
		})
	}
}

// TestProgressLinesAreASink: unless quiet, a run's per-second lines come
// from the progress sink, one for every second its result holds (the
// last, partial one printed after the run), and a quiet run prints none.
func TestProgressLinesAreASink(t *testing.T) {
	tg, err := embedded.Build()
	require.NoError(t, err)
	for _, quiet := range []bool{false, true} {
		var stderr bytes.Buffer
		hio := harness.IO{Out: io.Discard, Err: &stderr, In: bytes.NewReader(nil), Version: "test"}
		res, err := redisfront.Run(context.Background(), redisfront.Options{Options: common.Options{Embedded: true, NoServerStats: true},
			Target: tg, Commands: []string{"SET k-__RAND__ __DATA__"}, Parallel: 2, Duration: 1500 * time.Millisecond,
			R1: 1000, R2: 1000, DataSize: 16, Arrivals: redisfront.ArrivalsConstant, Out: output.Outputs{Quiet: quiet}}, hio)
		require.NoError(t, err, stderr.String())
		lines := 0
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "[") && strings.Contains(l, "s] ") {
				lines++
			}
		}
		if quiet {
			assert.Zero(t, lines, "a quiet run prints no per-second line")
			continue
		}
		assert.Equal(t, len(res.Series), lines, "a line for every second of the result:\n%s", stderr.String())
	}
}
