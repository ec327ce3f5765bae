// Package memtier reads memtier_benchmark's command line, turns it into a
// (mixed) command-template workload for tairbench's engine, and prints
// memtier's totals table and memtier-shaped JSON from tairbench's results.
// The whitepaper's memtier line runs with only the program name changed.
package memtier

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/common"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
)

// Options are memtier_benchmark's settings, with its defaults; each field is
// named after the long option it holds.
type Options struct {
	Server     string
	Port       int
	UnixSocket string
	Auth       string
	Protocol   string
	Clients    int
	Threads    int
	Requests   string // a number per client, or "allkeys"
	TestTime   int
	Ratio      string
	DataSize   int
	RandomData bool
	// DataSizeRange is "MIN-MAX"; DataSizePattern R (random) or S (in turn).
	DataSizeRange   string
	DataSizePattern string
	SelectDB        int
	KeyPattern      string
	KeyMinimum      uint64
	KeyMaximum      uint64
	KeyPrefix       string
	// KeyMedian and KeyStdDev shape the G pattern (0: the middle, a sixth).
	KeyMedian    uint64
	KeyStdDev    float64
	Pipeline     int
	ExpiryRange  string
	ClusterMode  bool
	DistinctSeed bool
	Randomize    bool
	// Commands are --command templates (memtier's __key__ and __data__)
	// with their --command-ratio and --command-key-pattern.
	Commands        []string
	CommandRatios   []string
	CommandPatterns []string
	HideHistogram   bool
	Percentiles     string
	JSONOut         string
	HDRPrefix       string
	RateLimiting    int
	RunCount        int
	TLS             bool
	TLSSkipVerify   bool
	Cert, Key, CA   string
	SNI             string

	// tairbench's own options.
	common.Options
	// SLO is tairbench's capacity search (--slo and its settings).
	SLO flagval.Capacity
}

// flagSet binds every option to o.
func (o *Options) flagSet(out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("memtier", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.StringVarP(&o.Server, "server", "s", "localhost", "server address")
	fs.IntVarP(&o.Port, "port", "p", 6379, "server port")
	fs.StringVarP(&o.UnixSocket, "unix-socket", "S", "", "Unix socket path (instead of -s and -p)")
	fs.StringVarP(&o.Auth, "authenticate", "a", "", "password, or user:password")
	fs.StringVarP(&o.Protocol, "protocol", "P", "redis", "redis or resp3 (resp2 accepted)")
	fs.IntVarP(&o.Clients, "clients", "c", 50, "connections per thread")
	fs.IntVarP(&o.Threads, "threads", "t", 4, "threads")
	fs.StringVarP(&o.Requests, "requests", "n", "10000", "requests per client, or allkeys")
	fs.IntVar(&o.TestTime, "test-time", 0, "seconds to run (instead of --requests)")
	fs.StringVar(&o.Ratio, "ratio", "1:10", "SET:GET ratio")
	fs.IntVarP(&o.DataSize, "data-size", "d", 32, "value size in bytes")
	fs.BoolVarP(&o.RandomData, "random-data", "R", false, "random value content")
	fs.StringVar(&o.DataSizeRange, "data-size-range", "", "value sizes MIN-MAX bytes (instead of -d)")
	fs.StringVar(&o.DataSizePattern, "data-size-pattern", "R", "with --data-size-range: R random sizes, S one after the other")
	fs.IntVar(&o.SelectDB, "select-db", 0, "database number")
	fs.StringVar(&o.KeyPattern, "key-pattern", "R:R", "SET:GET key patterns: R random, S sequential, G gaussian, P a slice per connection")
	fs.Uint64Var(&o.KeyMinimum, "key-minimum", 0, "lowest key number")
	fs.Uint64Var(&o.KeyMaximum, "key-maximum", 10000000, "highest key number")
	fs.StringVar(&o.KeyPrefix, "key-prefix", "memtier-", "key prefix")
	fs.Uint64Var(&o.KeyMedian, "key-median", 0, "G pattern: the median key (default: the middle of the range)")
	fs.Float64Var(&o.KeyStdDev, "key-stddev", 0, "G pattern: the standard deviation (default: a sixth of the range)")
	fs.IntVar(&o.Pipeline, "pipeline", 1, "requests in flight per connection (a window: one more sent for each reply; with --rate-limiting, each request at its own intended start while fewer are in flight)")
	fs.StringVar(&o.ExpiryRange, "expiry-range", "0-0", "SET expiry in seconds, min-max")
	fs.BoolVar(&o.ClusterMode, "cluster-mode", false, "route by slot")
	fs.BoolVar(&o.DistinctSeed, "distinct-client-seed", false, "a seed per client (default: every connection draws the same keys, as memtier's do)")
	fs.BoolVar(&o.Randomize, "randomize", false, "a random base seed")
	fs.StringArrayVar(&o.Commands, "command", nil, "an arbitrary command (__key__, __data__); repeatable")
	fs.StringArrayVar(&o.CommandRatios, "command-ratio", nil, "the weight of the --command before it")
	fs.StringArrayVar(&o.CommandPatterns, "command-key-pattern", nil, "the key pattern of the --command before it: R or S")
	fs.BoolVar(&o.HideHistogram, "hide-histogram", false, "no latency distribution")
	fs.StringVar(&o.Percentiles, "print-percentiles", "50,99,99.9", "percentiles in the table")
	fs.StringVar(&o.JSONOut, "json-out-file", "", "memtier-shaped JSON to this file")
	fs.StringVar(&o.HDRPrefix, "hdr-file-prefix", "", "write each type's latency distribution (.hgrm) with this prefix")
	fs.IntVar(&o.RateLimiting, "rate-limiting", 0, "requests per second per connection (open-loop in tairbench)")
	fs.IntVarP(&o.RunCount, "run-count", "x", 1, "runs (1 only)")
	fs.BoolVar(&o.TLS, "tls", false, "TLS")
	fs.BoolVar(&o.TLSSkipVerify, "tls-skip-verify", false, "do not verify the server's certificate")
	fs.StringVar(&o.Cert, "cert", "", "client certificate")
	fs.StringVar(&o.Key, "key", "", "client key")
	fs.StringVar(&o.CA, "cacert", "", "CA certificate")
	fs.StringVar(&o.SNI, "sni", "", "TLS server name")
	for _, name := range []string{"hide-histogram", "random-data", "cluster-mode", "distinct-client-seed", "randomize", "tls", "tls-skip-verify"} {
		fs.Lookup(name).NoOptDefVal = "true"
	}
	o.Options = common.Defaults()
	o.Options.Register(fs, "tairbench: ")
	o.SLO.Register(fs)
	return fs
}

// ErrHelp is returned by Parse for --help.
var ErrHelp = pflag.ErrHelp

// Usage returns the option list.
func Usage() string {
	var o Options
	var b strings.Builder
	fs := o.flagSet(&b)
	return "Usage: tairbench memtier [OPTIONS]\nmemtier_benchmark's options, run by tairbench's engine:\n" + fs.FlagUsages() +
		"Not supported: --data-size-list, --run-count above 1, the memcache protocols, --wait-ratio."
}

// Parse reads memtier_benchmark's arguments (after the program name).
func Parse(args []string) (Options, error) {
	var o Options
	fs := o.flagSet(io.Discard)
	fs.Bool("help", false, "")
	fs.Lookup("help").NoOptDefVal = "true"
	unsupported := map[string]string{
		"data-size-list": "--data-size-list is not supported yet; use --data-size-range",
		"wait-ratio":     "--wait-ratio (WAIT) is not supported",
	}
	for _, a := range args {
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		if msg, ok := unsupported[name]; ok && strings.HasPrefix(a, "--") {
			return o, errors.New(msg)
		}
	}
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w (see --help)", err)
	}
	if fs.Changed("data-size") && o.DataSizeRange != "" {
		return o, errors.New("--data-size cannot be used with --data-size-range")
	}
	if h, _ := fs.GetBool("help"); h {
		return o, ErrHelp
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, o.check()
}

func (o *Options) check() error {
	switch {
	case o.Clients < 1 || o.Threads < 1:
		return errors.New("--clients and --threads must be at least 1")
	case o.Pipeline < 1:
		return errors.New("--pipeline must be at least 1")
	case o.KeyMaximum < o.KeyMinimum:
		return errors.New("--key-maximum must not be below --key-minimum")
	case o.RunCount != 1:
		return errors.New("--run-count above 1 is not supported yet; run the command again")
	case o.Protocol != "redis" && o.Protocol != "resp2" && o.Protocol != "resp3":
		return fmt.Errorf("--protocol %s is not supported (redis, resp2, resp3)", o.Protocol)
	case o.TestTime < 0 || o.RateLimiting < 0:
		return errors.New("--test-time and --rate-limiting must not be negative")
	case o.Requests == "allkeys" && o.TestTime == 0 && o.KeyMaximum == o.KeyMinimum:
		return errors.New("--requests allkeys sends --key-maximum − --key-minimum requests per client, as memtier does: give a range of more than one key")
	case o.SLO.Given() && (o.JSONOut != "" || o.HDRPrefix != ""):
		return errors.New("--json-out-file and --hdr-file-prefix describe one run; a capacity search (--slo) writes every step with --json")
	}
	if o.Requests != "allkeys" {
		if n, err := strconv.ParseInt(o.Requests, 10, 64); err != nil || n < 1 {
			return fmt.Errorf("--requests %q: a whole number above 0, or allkeys", o.Requests)
		}
	}
	if len(o.CommandRatios) > len(o.Commands) || len(o.CommandPatterns) > len(o.Commands) {
		return errors.New("--command-ratio and --command-key-pattern follow the --command they belong to")
	}
	return nil
}

// Connections is the number of connections: clients per thread × threads.
func (o Options) Connections() int { return o.Clients * o.Threads }

// Target is the server the options name.
func (o Options) Target() (endpoint.Target, error) {
	addr, err := endpoint.HostPort(o.Server, o.Port)
	if o.UnixSocket != "" {
		addr, err = "unix:"+o.UnixSocket, nil
	}
	if err != nil {
		return endpoint.Target{}, err
	}
	t := endpoint.Target{Addr: addr, Auth: o.Auth, DB: o.SelectDB, Protocol: 2, Timeout: o.Timeout, Cluster: o.ClusterMode}
	if o.Protocol == "resp3" {
		t.Protocol = 3
	}
	if o.TLS || o.CA != "" || o.TLSSkipVerify || o.Cert != "" {
		t.TLS = &endpoint.TLS{CAFile: o.CA, CertFile: o.Cert, KeyFile: o.Key, Insecure: o.TLSSkipVerify, ServerName: o.SNI}
	}
	t = o.Follow(t)
	return t, t.Validate()
}

// RedactedArgs returns args with the password hidden.
func RedactedArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		switch {
		case (out[i] == "-a" || out[i] == "--authenticate") && i+1 < len(out):
			out[i+1] = endpoint.RedactAuth(out[i+1])
		case strings.HasPrefix(out[i], "--authenticate="):
			out[i] = "--authenticate=" + endpoint.RedactAuth(strings.TrimPrefix(out[i], "--authenticate="))
		}
	}
	return out
}
