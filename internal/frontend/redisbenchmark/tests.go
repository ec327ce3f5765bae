package redisbenchmark

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// Test is one of redis-benchmark's tests as a command template.
type Test struct {
	// Name is the test's title as redis-benchmark prints it.
	Name string
	// Template is the command; __RAND__ stands for __rand_int__.
	Template string
	// Inline sends the inline protocol (PING_INLINE).
	Inline bool
}

// testDef is a built-in test: selected by any of its -t names.
type testDef struct {
	name  string
	names []string
	// format has {tag} for the cluster tag, {data} for the value and
	// {score} for ZADD's score.
	format string
	inline bool
}

// builtin lists redis-benchmark's tests in the order it runs them.
var builtin = []testDef{
	{"PING_INLINE", []string{"ping_inline", "ping"}, "PING", true},
	{"PING_MBULK", []string{"ping_mbulk", "ping"}, "PING", false},
	{"SET", []string{"set"}, "SET key{tag}:__rand_int__ {data}", false},
	{"GET", []string{"get"}, "GET key{tag}:__rand_int__", false},
	{"INCR", []string{"incr"}, "INCR counter{tag}:__rand_int__", false},
	{"LPUSH", []string{"lpush"}, "LPUSH mylist{tag} {data}", false},
	{"RPUSH", []string{"rpush"}, "RPUSH mylist{tag} {data}", false},
	{"LPOP", []string{"lpop"}, "LPOP mylist{tag}", false},
	{"RPOP", []string{"rpop"}, "RPOP mylist{tag}", false},
	{"SADD", []string{"sadd"}, "SADD myset{tag} element:__rand_int__", false},
	{"HSET", []string{"hset"}, "HSET myhash{tag} element:__rand_int__ {data}", false},
	{"SPOP", []string{"spop"}, "SPOP myset{tag}", false},
	{"ZADD", []string{"zadd"}, "ZADD myzset{tag} {score} element:__rand_int__", false},
	{"ZPOPMIN", []string{"zpopmin"}, "ZPOPMIN myzset{tag}", false},
	{"LPUSH (needed to benchmark LRANGE)", []string{"lrange", "lrange_100", "lrange_300", "lrange_500", "lrange_600"}, "LPUSH mylist{tag} {data}", false},
	{"LRANGE_100 (first 100 elements)", []string{"lrange", "lrange_100"}, "LRANGE mylist{tag} 0 99", false},
	{"LRANGE_300 (first 300 elements)", []string{"lrange", "lrange_300"}, "LRANGE mylist{tag} 0 299", false},
	{"LRANGE_500 (first 500 elements)", []string{"lrange", "lrange_500"}, "LRANGE mylist{tag} 0 499", false},
	{"LRANGE_600 (first 600 elements)", []string{"lrange", "lrange_600"}, "LRANGE mylist{tag} 0 599", false},
	{"MSET (10 keys)", []string{"mset"}, "MSET" + strings.Repeat(" key{tag}:__rand_int__ {data}", 10), false},
}

// TestNames are the names -t accepts.
func TestNames() []string {
	var names []string
	for _, d := range builtin {
		for _, s := range d.names {
			if !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
	}
	return names
}

// payload is redis-benchmark's value: size random capital letters, made
// once for the whole run.
func payload(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x7061796c6f6164))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte('A' + r.IntN(26))
	}
	return string(b)
}

// Tests returns the tests the options select, with their templates.
func (o Options) Tests() ([]Test, error) {
	randTmpl := func(s string) string {
		if o.KeySpace == 0 {
			return s // without -r, redis-benchmark sends __rand_int__ as is
		}
		return strings.ReplaceAll(s, "__rand_int__", "__RAND__")
	}
	if len(o.Command) > 0 {
		args := make([]string, len(o.Command))
		for i, a := range o.Command {
			args[i] = quote(randTmpl(a))
		}
		return []Test{{Name: strings.Join(o.Command, " "), Template: strings.Join(args, " ")}}, nil
	}
	for _, t := range o.Selected {
		if !slices.Contains(TestNames(), t) {
			return nil, fmt.Errorf("-t %s: unknown test (tests: %s)", t, strings.Join(TestNames(), ", "))
		}
	}
	tag := ""
	if o.Cluster {
		tag = "{tag}"
	}
	score := "0"
	if o.KeySpace > 0 {
		score = "__rand_int__"
	}
	data := payload(o.DataSize, o.Seed)
	var out []Test
	for _, d := range builtin {
		if len(o.Selected) > 0 && !slices.ContainsFunc(d.names, func(s string) bool { return slices.Contains(o.Selected, s) }) {
			continue
		}
		r := strings.NewReplacer("{tag}", tag, "{data}", quote(data), "{score}", score)
		out = append(out, Test{Name: d.name, Template: randTmpl(r.Replace(d.format)), Inline: d.inline})
	}
	return out, nil
}

// quote makes an argument one template argument whatever it holds.
func quote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\r\n\"'\\") {
		return a
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(a) + `"`
}

// TemplateOptions is the range of __rand_int__: -r values written with 12
// digits, as redis-benchmark writes them.
func (o Options) TemplateOptions() cmdtmpl.Options {
	var opts cmdtmpl.Options
	if o.KeySpace > 0 {
		opts.Ranges[1] = cmdtmpl.Range{Max: o.KeySpace, Pad: 12}
	}
	return opts
}

// Spec is the runner spec of test t against tg: -c connections, -n
// commands, -P per pipeline; progress may be nil.
func (o Options) Spec(t Test, version string, tg endpoint.Target, progress func(stats.Progress)) (run.Spec, error) {
	ts := redis.TemplateSpec{Template: t.Template, Options: o.TemplateOptions(), Inline: t.Inline, ServerStats: !o.NoServerStats}
	if o.Pipeline > 1 {
		ts.Pipeline = o.Pipeline
	}
	w, err := ts.Workload()
	if err != nil {
		return run.Spec{}, fmt.Errorf("test %s: %w", t.Name, err)
	}
	cfg := engine.Config{Workers: o.Clients, Ops: o.Requests, Seed: o.Seed, Progress: progress}
	return tmplrun.FromTemplate(ts, t.Name, version, tg, w, cfg), nil
}
