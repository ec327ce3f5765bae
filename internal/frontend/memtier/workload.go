package memtier

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// keyRange is the key numbers' range for one key pattern.
func (o Options) keyRange(pattern string) (cmdtmpl.Range, error) {
	r := cmdtmpl.Range{Max: o.KeyMaximum - o.KeyMinimum + 1, Offset: o.KeyMinimum}
	switch pattern {
	case "R":
	case "S":
		r.Dist = cmdtmpl.Seq
	case "G":
		r.Dist = cmdtmpl.Gauss
		if o.KeyMedian > 0 {
			r.Mean = float64(o.KeyMedian - min(o.KeyMedian, o.KeyMinimum))
		}
		r.StdDev = o.KeyStdDev
	case "P":
		r.Dist = cmdtmpl.Part
	default:
		return r, fmt.Errorf("unknown key pattern %q (R, S, G, P)", pattern)
	}
	return r, nil
}

// value is the SET value: fixed 'x's, or varying content with
// --random-data (and always with --data-size-range, whose sizes vary).
func (o Options) value() string {
	if o.RandomData || o.DataSizeRange != "" {
		return "__DATA__"
	}
	if o.DataSize == 0 {
		return `""`
	}
	return strings.Repeat("x", o.DataSize)
}

// Spec returns the workload: SET and GET by --ratio and --key-pattern, or
// the --command templates by --command-ratio. Requests rotate through the
// types by weight on each connection, as memtier's do.
func (o Options) Spec() (redis.TemplateSpec, error) {
	ts := redis.TemplateSpec{Rotate: true, Options: cmdtmpl.Options{DataSize: o.DataSize}}
	if o.DataSizeRange != "" {
		lo, hi, ok := strings.Cut(o.DataSizeRange, "-")
		min, err1 := strconv.Atoi(lo)
		max, err2 := strconv.Atoi(hi)
		if !ok || err1 != nil || err2 != nil || min < 1 || max < min {
			return ts, fmt.Errorf("--data-size-range %q: want MIN-MAX bytes", o.DataSizeRange)
		}
		ts.Options.DataSize, ts.Options.DataMax = min, max
		switch o.DataSizePattern {
		case "R", "":
		case "S":
			ts.Options.DataSeq = true
		default:
			return ts, fmt.Errorf("--data-size-pattern %q: R or S", o.DataSizePattern)
		}
	}
	if o.Pipeline > 1 {
		// memtier keeps --pipeline requests in flight per connection, one
		// more sent for each reply: a window, not a batch of N.
		ts.Window = o.Pipeline
	}
	if len(o.Commands) > 0 {
		if len(o.Commands) > cmdtmpl.MaxRanges-2 {
			return ts, fmt.Errorf("at most %d --command templates", cmdtmpl.MaxRanges-2)
		}
		for i, c := range o.Commands {
			n := i + 3
			pattern := "R"
			if i < len(o.CommandPatterns) {
				pattern = o.CommandPatterns[i]
			}
			r, err := o.keyRange(pattern)
			if err != nil {
				return ts, fmt.Errorf("--command %q: %w", c, err)
			}
			ts.Options.Ranges[n] = r
			weight := 1
			if i < len(o.CommandRatios) {
				if weight, err = strconv.Atoi(o.CommandRatios[i]); err != nil || weight < 0 {
					return ts, fmt.Errorf("--command-ratio %q: a whole number", o.CommandRatios[i])
				}
			}
			tmpl := strings.NewReplacer("__key__", o.KeyPrefix+"__RAND"+strconv.Itoa(n)+"__", "__data__", o.value()).Replace(c)
			ts.Mix = append(ts.Mix, redis.MixEntry{Template: tmpl, Weight: weight})
		}
		if len(ts.Mix) == 1 {
			ts.Template = ts.Mix[0].Template
			ts.Mix = nil
		}
		return ts, nil
	}
	setW, getW, err := ratio(o.Ratio)
	if err != nil {
		return ts, err
	}
	setP, getP, ok := strings.Cut(o.KeyPattern, ":")
	if !ok {
		return ts, fmt.Errorf("--key-pattern %q: want SET:GET, as R:R", o.KeyPattern)
	}
	if ts.Options.Ranges[1], err = o.keyRange(setP); err != nil {
		return ts, err
	}
	if ts.Options.Ranges[2], err = o.keyRange(getP); err != nil {
		return ts, err
	}
	set := "SET " + o.KeyPrefix + "__RAND__ " + o.value()
	if o.ExpiryRange != "0-0" {
		lo, hi, ok := strings.Cut(o.ExpiryRange, "-")
		min, err1 := strconv.ParseUint(lo, 10, 64)
		max, err2 := strconv.ParseUint(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || max < min {
			return ts, fmt.Errorf("--expiry-range %q: want MIN-MAX seconds", o.ExpiryRange)
		}
		if max > 0 {
			ts.Options.Ranges[3] = cmdtmpl.Range{Max: max - min + 1, Offset: min}
			set += " EX __RAND3__"
		}
	}
	ts.Mix = []redis.MixEntry{
		{Name: "SET", Template: set, Weight: setW},
		{Name: "GET", Template: "GET " + o.KeyPrefix + "__RAND2__", Weight: getW},
	}
	return ts, nil
}

func ratio(s string) (set, get int, err error) {
	a, b, ok := strings.Cut(s, ":")
	set, err1 := strconv.Atoi(a)
	get, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || set < 0 || get < 0 || set+get == 0 {
		return 0, 0, fmt.Errorf("--ratio %q: want SET:GET weights, as 1:10", s)
	}
	return set, get, nil
}

// PerClient is the requests each connection sends, exactly (0 with
// --test-time, which alone stops the run): --requests, or for allkeys what
// memtier sets, --key-maximum − --key-minimum, divided among the
// connections (plus one) with --key-pattern P:P, where each connection has
// its own slice of the range.
func (o Options) PerClient() int64 {
	if o.TestTime > 0 {
		return 0
	}
	if o.Requests == "allkeys" {
		n := int64(o.KeyMaximum - o.KeyMinimum)
		if o.KeyPattern == "P:P" {
			n = n/int64(o.Connections()) + 1
		}
		return n
	}
	n, _ := strconv.ParseInt(o.Requests, 10, 64)
	return n
}

// RunSpec is the runner spec of the options' workload against tg with base
// seed seed: connections, budget, rate and, without
// --distinct-client-seed, one key sequence for every connection.
func (o Options) RunSpec(name, version string, tg endpoint.Target, seed uint64, progress func(stats.Progress)) (run.Spec, error) {
	ts, err := o.Spec()
	if err != nil {
		return run.Spec{}, err
	}
	ts.ServerStats = !o.NoServerStats
	ts.WindowLimit = o.PerClient() // each connection sends exactly --requests
	if !o.DistinctSeed {
		ts.SharedSeed = seed // memtier's default: every connection draws the same keys
	}
	w, err := ts.Workload()
	var te *redis.TemplateError
	if errors.As(err, &te) {
		return run.Spec{}, fmt.Errorf("bad --command %q: %w", te.Template, te.Err)
	}
	if err != nil {
		return run.Spec{}, err
	}
	cfg := engine.Config{Workers: o.Connections(), OpsPerWorker: o.PerClient(), Duration: time.Duration(o.TestTime) * time.Second,
		Seed: seed, Rate: float64(o.RateLimiting * o.Connections()), Progress: progress}
	return tmplrun.FromTemplate(ts, name, version, tg, w, cfg), nil
}
