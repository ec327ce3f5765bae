// Package ycsb reads YCSB's command line (`ycsb load|run redis -P
// workloads/workloada -p k=v … -threads N`), generates YCSB's core
// workload (its key names, operation mix and request distributions) as a
// tairbench engine workload over the Redis binding's command groups, and
// prints YCSB's report.
package ycsb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/common"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
)

// coreWorkloads are YCSB's workloads A–F (workloads/workloadX), built in.
var coreWorkloads = map[string]map[string]string{
	"workloada": {"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "zipfian"},
	"workloadb": {"readproportion": "0.95", "updateproportion": "0.05", "requestdistribution": "zipfian"},
	"workloadc": {"readproportion": "1", "updateproportion": "0", "requestdistribution": "zipfian"},
	"workloadd": {"readproportion": "0.95", "updateproportion": "0", "insertproportion": "0.05", "requestdistribution": "latest"},
	"workloade": {"readproportion": "0", "updateproportion": "0", "scanproportion": "0.95", "insertproportion": "0.05", "requestdistribution": "zipfian"},
	"workloadf": {"readproportion": "0.5", "updateproportion": "0", "readmodifywriteproportion": "0.5", "requestdistribution": "zipfian"},
}

// defaults are CoreWorkload's defaults, and the core workload files' shared lines.
var defaults = map[string]string{
	"recordcount": "1000", "operationcount": "1000", "fieldcount": "10", "fieldlength": "100",
	"fieldlengthdistribution": "constant", "readproportion": "0.95", "updateproportion": "0.05",
	"insertproportion": "0", "scanproportion": "0", "readmodifywriteproportion": "0",
	"requestdistribution": "uniform", "insertorder": "hashed", "zeropadding": "1", "insertstart": "0",
	"hotspotdatafraction": "0.2", "hotspotopnfraction": "0.8", "threadcount": "1",
	"redis.host": "127.0.0.1", "redis.port": "6379", "redis.command_group": "hash", "redis.timeout": "2000",
}

// Command is a parsed YCSB command line.
type Command struct {
	// Phase is "load" or "run".
	Phase  string
	Status bool
	Props  map[string]string
	// Sources lists where the properties came from (for the report).
	Sources []string
	// tairbench's own options; Timeout, when set, replaces redis.timeout.
	common.Options
	// Shard ("i/N") and StartAt are --shard and --start-at as given.
	Shard, StartAt string
	// ShardIndex and Shards, once set (SetShard), split a load's records.
	ShardIndex, Shards int
	// SLO is tairbench's capacity search (--slo and its settings).
	SLO flagval.Capacity
	// AllowUnknown accepts properties tairbench does not know, as YCSB
	// does (--allow-unknown-properties); given are the keys the files and
	// -p set.
	AllowUnknown bool
	given        []string
}

// Parse reads `load|run redis [-s] [-P file]… [-p k=v]… [-threads N]
// [-target N]` (the words after "ycsb").
func Parse(args []string) (*Command, error) {
	if len(args) < 2 {
		return nil, errors.New("usage: tairbench ycsb load|run redis [-s] -P workloads/workloadX [-p name=value]... [-threads N] [-target N]")
	}
	c := &Command{Phase: args[0], Props: map[string]string{}}
	if c.Phase != "load" && c.Phase != "run" {
		return nil, fmt.Errorf("the first word is load or run, not %q", args[0])
	}
	if db := args[1]; db != "redis" {
		return nil, fmt.Errorf("only the redis binding is supported, not %q", db)
	}
	for k, v := range defaults {
		c.Props[k] = v
	}
	var overrides [][2]string
	sloFS := pflag.NewFlagSet("slo", pflag.ContinueOnError)
	sloFS.SetOutput(io.Discard)
	c.SLO.Register(sloFS)
	var sloArgs []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var v string
		var err error
		switch a {
		case "-s":
			c.Status = true
		case "-P":
			if v, err = value(); err == nil {
				err = c.loadWorkload(v)
			}
		case "-p":
			if v, err = value(); err == nil {
				k, val, ok := strings.Cut(v, "=")
				if !ok {
					err = fmt.Errorf("-p %q: want name=value", v)
				}
				overrides = append(overrides, [2]string{strings.TrimSpace(k), val})
			}
		case "-threads":
			if v, err = value(); err == nil {
				overrides = append(overrides, [2]string{"threadcount", v})
			}
		case "-target":
			if v, err = value(); err == nil {
				overrides = append(overrides, [2]string{"target", v})
			}
		case "-t", "-load", "-db", "-l", "-jvm-args", "-cp":
			if a == "-db" || a == "-l" || a == "-jvm-args" || a == "-cp" {
				_, err = value()
			}
		case "--allow-unknown-properties":
			c.AllowUnknown = true
		case "--shard":
			c.Shard, err = value()
		case "--start-at":
			c.StartAt, err = value()
		default:
			if n, terr := c.Options.Take(args, i); n > 0 || terr != nil {
				i, err = i+max(n-1, 0), terr
				break
			}
			name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			switch {
			case !strings.HasPrefix(a, "--") || sloFS.Lookup(name) == nil:
				err = fmt.Errorf("unknown option %q", a)
			case hasValue:
				sloArgs = append(sloArgs, a)
			default:
				if v, err = value(); err == nil {
					sloArgs = append(sloArgs, a, v)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sloFS.Parse(sloArgs); err != nil {
		return nil, err
	}
	if c.SLO.Given() && c.Phase != "run" {
		return nil, errors.New("--slo searches a run phase's capacity; a load inserts a fixed set of records")
	}
	for _, kv := range overrides { // -p wins over -P, in order, as in YCSB
		c.Props[kv[0]] = kv[1]
		c.given = append(c.given, kv[0])
	}
	if err := c.takeOwn(); err != nil {
		return nil, err
	}
	if !c.AllowUnknown {
		if err := checkKeys(c.given); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// takeOwn moves the tairbench.NAME properties (from -p or a -P file) into
// tairbench's own options, parsed as --NAME is; they are not YCSB's.
func (c *Command) takeOwn() error {
	given := c.given[:0]
	for _, k := range c.given {
		name, ok := strings.CutPrefix(k, "tairbench.")
		if !ok {
			given = append(given, k)
			continue
		}
		if v, ok := c.Props[k]; ok {
			if err := c.Options.Set(name, v); err != nil {
				return fmt.Errorf("property %s: %w", k, err)
			}
			delete(c.Props, k)
		}
	}
	c.given = given
	return nil
}

// loadWorkload reads a properties file, or YCSB's core workload of that
// name when no such file exists.
func (c *Command) loadWorkload(path string) error {
	f, err := os.Open(path)
	if err != nil {
		name, ok := builtIn(path)
		if !ok {
			return fmt.Errorf("-P %s: %v (the built-in core workloads are named workloads/workloada … workloads/workloadf)", path, err)
		}
		for k, v := range coreWorkloads[name] {
			c.Props[k] = v
		}
		c.Sources = append(c.Sources, "built-in "+name)
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		c.Props[strings.TrimSpace(k)] = strings.TrimSpace(v)
		c.given = append(c.given, strings.TrimSpace(k))
	}
	c.Sources = append(c.Sources, path)
	return sc.Err()
}

// Workload is the parsed core workload.
type Workload struct {
	RecordCount, OperationCount, InsertStart, InsertCount int64
	FieldCount, FieldLength                               int
	FieldLengthDist                                       string
	Proportions                                           map[string]float64
	RequestDist                                           string
	Ordered                                               bool
	ZeroPadding                                           int
	HotData, HotOps                                       float64
	Threads                                               int
	Target                                                float64
	MaxExecution                                          time.Duration
	CommandGroup                                          string
	Range                                                 string
}

// Operations in YCSB's names and order.
var Operations = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}

func (c *Command) num(k string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(c.Props[k]), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("property %s=%q: a whole number of 0 or more", k, c.Props[k])
	}
	return v, nil
}

func (c *Command) frac(k string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(c.Props[k]), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("property %s=%q: a number of 0 or more", k, c.Props[k])
	}
	return v, nil
}

// Workload checks the properties and returns the workload.
func (c *Command) Workload() (*Workload, error) {
	w := &Workload{Proportions: map[string]float64{}}
	var err error
	get := func(dst *int64, k string) {
		if err == nil {
			*dst, err = c.num(k)
		}
	}
	get(&w.RecordCount, "recordcount")
	get(&w.OperationCount, "operationcount")
	get(&w.InsertStart, "insertstart")
	var fc, fl, zp, th int64
	get(&fc, "fieldcount")
	get(&fl, "fieldlength")
	get(&zp, "zeropadding")
	get(&th, "threadcount")
	if err != nil {
		return nil, err
	}
	if th < 1 {
		return nil, fmt.Errorf("threadcount (-threads) %d: at least 1", th)
	}
	w.FieldCount, w.FieldLength, w.ZeroPadding, w.Threads = int(fc), int(fl), int(zp), int(th)
	w.InsertCount = w.RecordCount - w.InsertStart
	if v, ok := c.Props["insertcount"]; ok && v != "" {
		if w.InsertCount, err = c.num("insertcount"); err != nil {
			return nil, err
		}
	}
	for _, op := range []struct{ name, prop string }{{"READ", "readproportion"}, {"UPDATE", "updateproportion"},
		{"INSERT", "insertproportion"}, {"SCAN", "scanproportion"}, {"READ-MODIFY-WRITE", "readmodifywriteproportion"}} {
		if w.Proportions[op.name], err = c.frac(op.prop); err != nil {
			return nil, err
		}
	}
	if w.HotData, err = c.frac("hotspotdatafraction"); err != nil {
		return nil, err
	}
	if w.HotOps, err = c.frac("hotspotopnfraction"); err != nil {
		return nil, err
	}
	if t := c.Props["target"]; t != "" {
		if w.Target, err = c.frac("target"); err != nil {
			return nil, err
		}
	}
	if t := c.Props["maxexecutiontime"]; t != "" {
		s, err := c.num("maxexecutiontime")
		if err != nil {
			return nil, err
		}
		w.MaxExecution = time.Duration(s) * time.Second
	}
	w.RequestDist = c.Props["requestdistribution"]
	switch w.RequestDist {
	case "uniform", "zipfian", "latest", "hotspot":
	default:
		return nil, fmt.Errorf("requestdistribution=%s: uniform, zipfian, latest or hotspot", w.RequestDist)
	}
	w.FieldLengthDist = c.Props["fieldlengthdistribution"]
	switch w.FieldLengthDist {
	case "constant", "uniform", "zipfian":
	default:
		return nil, fmt.Errorf("fieldlengthdistribution=%s: constant, uniform or zipfian", w.FieldLengthDist)
	}
	switch c.Props["insertorder"] {
	case "hashed":
	case "ordered":
		w.Ordered = true
	default:
		return nil, fmt.Errorf("insertorder=%s: hashed or ordered", c.Props["insertorder"])
	}
	w.CommandGroup = strings.ToLower(c.Props["redis.command_group"])
	switch w.CommandGroup {
	case "string", "hash", "list", "set", "zset":
	default:
		return nil, fmt.Errorf("redis.command_group=%s: string, hash, list, set or zset", w.CommandGroup)
	}
	w.Range = c.Props["redis.range"]
	if w.Proportions["SCAN"] > 0 && c.Phase == "run" {
		return nil, errors.New("scanproportion > 0: the Redis binding the whitepaper uses has no scan (workload E cannot run)")
	}
	if w.FieldCount < 1 {
		return nil, errors.New("fieldcount must be at least 1")
	}
	if w.InsertCount < 1 {
		return nil, errors.New("nothing to insert: recordcount - insertstart (or insertcount) is 0")
	}
	if c.Shards > 1 && c.Phase == "load" {
		// A load split over several clients, as insertstart/insertcount do.
		size := w.InsertCount / int64(c.Shards)
		lo := int64(c.ShardIndex) * size
		if c.ShardIndex == c.Shards-1 {
			size = w.InsertCount - lo
		}
		w.InsertStart, w.InsertCount = w.InsertStart+lo, size
	}
	return w, nil
}

// Target is the Redis server the properties name.
func (c *Command) Target() (endpoint.Target, error) {
	port, err := c.num("redis.port")
	if err != nil {
		return endpoint.Target{}, err
	}
	addr, err := endpoint.HostPort(c.Props["redis.host"], int(port))
	if err != nil {
		return endpoint.Target{}, err
	}
	ms, err := c.num("redis.timeout")
	if err != nil {
		return endpoint.Target{}, err
	}
	timeout := time.Duration(ms) * time.Millisecond
	if c.Timeout > 0 {
		timeout = c.Timeout
	}
	t := c.Follow(endpoint.Target{Addr: addr, Auth: c.Props["redis.password"], Protocol: 2, Timeout: timeout,
		Cluster: c.Props["redis.cluster"] == "true"})
	return t, t.Validate()
}

// PropertyLines lists the properties in name order, the password hidden.
func (c *Command) PropertyLines() []string {
	var out []string
	for k, v := range c.Props {
		if k == "redis.password" {
			v = endpoint.RedactAuth(v)
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
