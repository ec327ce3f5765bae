// Package respbenchmark is 'tairbench resp-benchmark': resp-benchmark's
// command line (PyPI's resp-benchmark, Alibaba's tool for RESP servers) run
// by tairbench's engine. Its placeholders ({key uniform N}, {key sequence
// N}, {key zipfian N}, {value N}, {rand N}, {range N W}) become a command
// template, its connection, count, time, pipeline, rate, cluster and load
// options an engine run, and its report is printed in its own shape with
// tairbench's accounting after it.
package respbenchmark

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/common"
)

// DefaultCommand is the command resp-benchmark runs when given none.
const DefaultCommand = "SET {key uniform 100000} {value 64}"

// Options are resp-benchmark's options, with its defaults, and
// tairbench's own.
type Options struct {
	Host     string
	Port     int
	User     string
	Password string
	// DBID is --dbid as given; one database is supported.
	DBID string
	DB   int
	// Connections is -c (0: find the count, as resp-benchmark does).
	Connections int
	// Cores is --cores as given (tairbench does not pin its threads).
	Cores   string
	Cluster bool
	// Requests (-n) and Seconds (-s) bound the run (0: no bound).
	Requests int64
	Seconds  int
	// Target is -t: requests per second in all (0: as fast as it goes).
	Target   int
	Pipeline int
	// Load only loads: the command runs Requests times, no benchmark.
	Load bool
	// Command is the command with its placeholders.
	Command string
	// Quiet (-q) prints no progress lines.
	Quiet bool
	common.Options
}

// Defaults are resp-benchmark's defaults.
func Defaults() Options {
	o := Options{Host: "127.0.0.1", Port: 6379, DBID: "0", Pipeline: 1, Command: DefaultCommand, Options: common.Defaults()}
	o.Timeout = 0 // resp-benchmark's own: 30 s (see Target)
	return o
}

// Usage is the option summary --help prints.
const Usage = `usage: tairbench resp-benchmark [-h host] [-p port] [-u username] [-a password]
                      [--dbid DBID] [-c clients] [--cluster] [-n requests]
                      [-t target] [-s seconds] [-P pipeline] [--load] [-q]
                      [command]
resp-benchmark's options, run by tairbench's engine:
  command     the command with placeholders (default "SET {key uniform 100000} {value 64}"):
              {key uniform N} {key sequence N} {key zipfian N} (key_%010d),
              {value N} (N random alphanumerics), {rand N}, {range N W} (two numbers)
  -h -p -u -a server, port, ACL user and password;  --dbid one database
  -c          connections (0, the default: double them from 1 while the rate grows by 30 %)
  -n -s       requests, seconds (0: no bound);  -P  commands per pipeline
  -t          requests per second in all: open loop in tairbench, latency also from each
              request's intended start
  --cluster   route by slot;  --load  only run the command -n times and report the rate
tairbench's own: --embedded, --json FILE (tairbench.compat/v1), --seed N, --no-server-stats,
--timeout D (default 30s, as resp-benchmark), --dry-run, --metrics-addr HOST:PORT, --metrics-linger S.
Refused, each with one line: --lua, --lua-file, --short-connection, several --dbid databases.
Accepted and not used: --cores (tairbench does not pin its threads; a note says so).`

// ErrHelp is returned by Parse for --help.
var ErrHelp = errors.New("help requested")

// ErrVersion is returned by Parse for -v and --version.
var ErrVersion = errors.New("version requested")

// Parse reads resp-benchmark's arguments (after the program name).
func Parse(args []string) (Options, error) {
	o := Defaults()
	commandGiven := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if rest := args[i+1:]; len(rest) > 0 {
				return o, o.command(rest, &commandGiven)
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if err := o.command([]string{a}, &commandGiven); err != nil {
				return o, err
			}
			continue
		}
		if n, err := o.Options.Take(args, i); n > 0 || err != nil {
			if err != nil {
				return o, err
			}
			i += n - 1
			continue
		}
		n, err := o.option(args, i)
		if err != nil {
			return o, err
		}
		i += n - 1
	}
	return o, o.check()
}

// command takes the positional command (one at most, as argparse's).
func (o *Options) command(words []string, given *bool) error {
	if *given || len(words) > 1 {
		return fmt.Errorf("unrecognized arguments: %s (quote the command: one argument)", strings.Join(words, " "))
	}
	o.Command, *given = words[0], true
	return nil
}

// option reads resp-benchmark's option at args[i]; it returns how many
// words it used.
func (o *Options) option(args []string, i int) (int, error) {
	name, value, attached := splitOption(args[i])
	used := 1
	val := func() (string, error) {
		if attached {
			return value, nil
		}
		if i+1 >= len(args) {
			return "", fmt.Errorf("argument %s: expected one argument", name)
		}
		used = 2
		return args[i+1], nil
	}
	num := func(dst *int) error {
		v, err := val()
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("argument %s: invalid int value: '%s'", name, v)
		}
		*dst = n
		return nil
	}
	var err error
	switch name {
	case "-h":
		o.Host, err = val()
	case "-p":
		err = num(&o.Port)
	case "-u":
		o.User, err = val()
	case "-a":
		o.Password, err = val()
	case "--dbid":
		o.DBID, err = val()
	case "-c":
		err = num(&o.Connections)
	case "--cores":
		o.Cores, err = val()
	case "-n":
		var n int
		err = num(&n)
		o.Requests = int64(n)
	case "-t":
		err = num(&o.Target)
	case "-s":
		err = num(&o.Seconds)
	case "-P":
		err = num(&o.Pipeline)
	case "--cluster", "--load", "-q":
		if attached {
			return used, fmt.Errorf("argument %s: ignored explicit argument '%s'", name, value)
		}
		o.Cluster = o.Cluster || name == "--cluster"
		o.Load = o.Load || name == "--load"
		o.Quiet = o.Quiet || name == "-q"
	case "--help":
		return used, ErrHelp
	case "-v", "--version":
		return used, ErrVersion
	case "--lua", "--lua-file":
		return used, fmt.Errorf("%s: Lua workloads are not supported; write the command with placeholders, or use 'tairbench redis' with several -command templates and --ratio for a mix", name)
	case "--short-connection":
		return used, errors.New("--short-connection (a new connection per command) is not supported: tairbench measures commands on kept connections")
	default:
		return used, fmt.Errorf("unrecognized arguments: %s (see --help)", args[i])
	}
	return used, err
}

// splitOption splits "--name=value" and "-Xvalue" (argparse's attached
// forms) from an option.
func splitOption(a string) (name, value string, attached bool) {
	if strings.HasPrefix(a, "--") {
		name, value, attached = strings.Cut(a, "=")
		return name, value, attached
	}
	if len(a) > 2 {
		return a[:2], strings.TrimPrefix(a[2:], "="), true
	}
	return a, "", false
}

// check refuses what resp-benchmark refuses, and what tairbench cannot do.
func (o *Options) check() error {
	switch {
	case o.Pipeline <= 0:
		return errors.New("pipeline must be greater than 0")
	case o.Connections < 0 || o.Requests < 0 || o.Seconds < 0 || o.Target < 0:
		return errors.New("-c, -n, -s and -t must not be negative")
	case o.Load && o.Requests == 0:
		return errors.New("--load needs -n: the number of commands to load")
	case o.Port < 0 || o.Port > 65535:
		return fmt.Errorf("-p %d: want a port, 0 to 65535", o.Port)
	}
	ids, err := parseDBIDs(o.DBID)
	if err != nil {
		return err
	}
	if len(ids) > 1 {
		return fmt.Errorf("--dbid %s: tairbench runs one database at a time; give one ID (or run once for each)", o.DBID)
	}
	if o.Cluster && ids[0] != 0 {
		return errors.New("--cluster only supports dbid 0")
	}
	o.DB = ids[0]
	return nil
}

// parseDBIDs reads "0,1,2" and "0-2,255": the distinct IDs in order.
func parseDBIDs(s string) ([]int, error) {
	var ids []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b-a > 1<<16 {
			return nil, fmt.Errorf("--dbid %q: want IDs or inclusive ranges, as 0,1,2 or 0-2,255", s)
		}
		for id := a; id <= b; id++ {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// Endpoint is the server the options name. Its timeout is --timeout, or
// resp-benchmark's own 30 s.
func (o Options) Endpoint() (endpoint.Target, error) {
	addr, err := endpoint.HostPort(o.Host, o.Port)
	if err != nil {
		return endpoint.Target{}, err
	}
	t := endpoint.Target{Addr: addr, User: o.User, Password: o.Password, DB: o.DB, Protocol: 2, Timeout: o.Timeout,
		Cluster: o.Cluster}
	if o.User == "" {
		t.Auth, t.Password = o.Password, ""
	}
	if t.Timeout == 0 {
		t.Timeout = defaultTimeout
	}
	t = o.Follow(t)
	return t, t.Validate()
}
