// Package redisbenchmark reads redis-benchmark's command line, turns its
// tests into command templates for tairbench's engine, and prints
// redis-benchmark's report from tairbench's results. The whitepaper's
// redis-benchmark lines run with only the program name changed.
package redisbenchmark

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/common"
)

// Options are redis-benchmark's settings, with its defaults.
type Options struct {
	Host string
	Port int
	// Socket is -s: a Unix socket path, which overrides -h and -p.
	Socket   string
	Password string
	User     string
	Clients  int
	Requests int64
	DataSize int
	DBNum    int
	RESP3    bool
	Threads  int
	Cluster  bool
	// KeySpace is -r: __rand_int__ draws from [0, KeySpace); 0 leaves it as is.
	KeySpace  uint64
	Pipeline  int
	Quiet     bool
	CSV       bool
	Loop      bool
	Precision int
	// Selected is -t, lower-cased (empty: the default set).
	Selected []string
	// Command is a command given after the options (it replaces the tests).
	Command []string
	// StdinArg is -x: the last argument of Command comes from standard input.
	StdinArg bool

	TLS                      bool
	SNI, CACert, Cert, Key   string
	Insecure, EnableTracking bool

	// tairbench's own options, accepted among redis-benchmark's.
	common.Options
}

// Defaults returns redis-benchmark's defaults.
func Defaults() Options {
	return Options{Host: "127.0.0.1", Port: 6379, Clients: 50, Requests: 100000, DataSize: 3, Pipeline: 1,
		Options: common.Defaults()}
}

// Usage is the option summary printed for --help.
const Usage = `Usage: tairbench redis-benchmark [OPTIONS] [COMMAND ARGS...]
redis-benchmark's options, run by tairbench's engine:
 -h <hostname> -p <port> -s <socket> -a <password | user:password> --user <username> -u <uri>
 -c <clients> (50)  -n <requests> (100000)  -d <size> (3)  --dbnum <db>  -3
 --threads <num>  --cluster  -r <keyspacelen>  -P <numreq>  -q  --csv  -l
 --precision <n>  -t <tests>  -x  --tls --sni --cacert --cert --key --insecure
Tests: ping_inline, ping_mbulk (ping: both), set, get, incr, lpush, rpush, lpop,
rpop, sadd, hset, spop, zadd, zpopmin, lrange (lrange_100, lrange_300,
lrange_500, lrange_600), mset.
tairbench's own: --embedded (start the embedded server and target it),
--json FILE (tairbench.compat/v1), --seed N, --no-server-stats, --timeout D,
--dry-run (print the tests and send nothing), --metrics-addr HOST:PORT and
--metrics-linger S (live Prometheus metrics).
Not supported: -k 0 (reconnect per request), -I (idle mode), --cacertdir,
--tls-ciphers and --tls-ciphersuites (Go chooses from its own secure list),
--enable-tracking.`

// ErrHelp is returned by Parse for --help.
var ErrHelp = errors.New("help requested")

// Parse reads redis-benchmark's arguments (after the program name). Notes
// about what it reinterpreted go to warn.
func Parse(args []string, warn io.Writer) (Options, error) {
	o := Defaults()
	s := &argScanner{args: args}
	for ; s.i < len(args); s.i++ {
		s.arg = args[s.i]
		// The whitepaper prints "- r 100000": a stray space after the dash.
		if s.arg == "-" && s.i+1 < len(args) && len(args[s.i+1]) >= 1 && !strings.HasPrefix(args[s.i+1], "-") {
			fmt.Fprintf(warn, "note: read '- %s' as '-%s' (a stray space after the dash)\n", args[s.i+1], args[s.i+1])
			s.arg = "-" + args[s.i+1]
			s.i++
		}
		if !strings.HasPrefix(s.arg, "-") || s.arg == "-" {
			o.Command = args[s.i:]
			break
		}
		if err := o.apply(s); err != nil {
			return o, err
		}
	}
	if o.Threads > 0 {
		fmt.Fprintf(warn, "note: --threads %d is kept for redis-benchmark's report; tairbench's connections are goroutines spread over every core (GOMAXPROCS %d) whatever it says\n",
			o.Threads, runtime.GOMAXPROCS(0))
	}
	switch {
	case o.Clients < 1:
		return o, errors.New("-c must be at least 1")
	case o.Requests < 1:
		return o, errors.New("-n must be at least 1")
	case o.Pipeline < 1:
		return o, errors.New("-P must be at least 1")
	case o.User != "" && o.Password == "":
		return o, errors.New("--user needs -a")
	}
	return o, nil
}

// argScanner walks a command line: arg is the option at i.
type argScanner struct {
	args []string
	i    int
	arg  string
}

// value takes the option's value, the next argument.
func (s *argScanner) value() (string, error) {
	if s.i+1 >= len(s.args) {
		return "", fmt.Errorf("option %s needs a value", s.arg)
	}
	s.i++
	return s.args[s.i], nil
}

// number takes the option's value as a whole number of 0 or more.
func (s *argScanner) number() (int64, error) {
	v, err := s.value()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("option %s: %q is not a whole number of 0 or more", s.arg, v)
	}
	return n, nil
}

// apply reads the option s.arg (and its value) into o.
func (o *Options) apply(s *argScanner) error {
	var err error
	var n int64
	switch s.arg {
	case "-h":
		o.Host, err = s.value()
	case "-p":
		n, err = s.number()
		o.Port = int(n)
	case "-s":
		o.Socket, err = s.value()
	case "-a":
		o.Password, err = s.value()
	case "--user":
		o.User, err = s.value()
	case "-u":
		var v string
		if v, err = s.value(); err == nil {
			err = o.parseURI(v)
		}
	case "-c":
		n, err = s.number()
		o.Clients = int(n)
	case "-n":
		o.Requests, err = s.number()
	case "-d":
		n, err = s.number()
		o.DataSize = int(n)
	case "--dbnum":
		n, err = s.number()
		o.DBNum = int(n)
	case "-3":
		o.RESP3 = true
	case "--threads":
		n, err = s.number()
		o.Threads = int(n)
	case "--cluster":
		o.Cluster = true
	case "--enable-tracking":
		return errors.New("--enable-tracking is not supported")
	case "-k":
		var v string
		if v, err = s.value(); err == nil && v != "1" {
			return errors.New("-k 0 (a new connection for every request) is not supported; tairbench keeps connections alive")
		}
	case "-r":
		n, err = s.number()
		o.KeySpace = uint64(n)
	case "-P":
		n, err = s.number()
		o.Pipeline = int(n)
	case "-q":
		o.Quiet = true
	case "--precision":
		n, err = s.number()
		o.Precision = int(n)
	case "--csv":
		o.CSV = true
	case "-l":
		o.Loop = true
	case "-t":
		var v string
		if v, err = s.value(); err == nil {
			for _, t := range strings.Split(strings.ToLower(v), ",") {
				if t = strings.TrimSpace(t); t != "" {
					o.Selected = append(o.Selected, t)
				}
			}
		}
	case "-I":
		return errors.New("-I (idle mode) is not supported")
	case "-x":
		o.StdinArg = true
	case "--tls":
		o.TLS = true
	case "--sni":
		o.SNI, err = s.value()
	case "--cacert":
		o.CACert, err = s.value()
	case "--cacertdir":
		return errors.New("--cacertdir is not supported; give the CA file with --cacert")
	case "--insecure":
		o.Insecure = true
	case "--cert":
		o.Cert, err = s.value()
	case "--key":
		o.Key, err = s.value()
	case "--tls-ciphers", "--tls-ciphersuites":
		return fmt.Errorf("%s is not supported: Go's TLS offers its own list of secure cipher suites (TLS 1.3's cannot be chosen at all); leave it out", s.arg)
	case "--help":
		return ErrHelp
	default:
		return o.applyOwn(s)
	}
	return err
}

// applyOwn reads tairbench's own options among redis-benchmark's.
func (o *Options) applyOwn(s *argScanner) error {
	n, err := o.Options.Take(s.args, s.i)
	if n == 0 && err == nil {
		return fmt.Errorf("unrecognized option or bad number of args for: '%s' (see --help)", s.arg)
	}
	s.i += max(n-1, 0)
	return err
}

// parseURI reads -u redis[s]://[[user]:password@]host[:port][/db].
func (o *Options) parseURI(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		return fmt.Errorf("-u %q: want redis://[[user]:password@]host[:port][/db]", s)
	}
	o.TLS = u.Scheme == "rediss"
	if h := u.Hostname(); h != "" {
		o.Host = h
	}
	if p := u.Port(); p != "" {
		if o.Port, err = strconv.Atoi(p); err != nil {
			return fmt.Errorf("-u %q: bad port", s)
		}
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			o.Password, o.User = pw, u.User.Username()
		} else {
			o.Password = u.User.Username()
		}
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if o.DBNum, err = strconv.Atoi(db); err != nil {
			return fmt.Errorf("-u %q: bad database number", s)
		}
	}
	return nil
}

// Target is the server the options name. -a takes a password or Tair's
// user:password; --user with -a is an ACL login.
func (o Options) Target() (endpoint.Target, error) {
	addr, err := endpoint.HostPort(o.Host, o.Port)
	if o.Socket != "" {
		addr, err = "unix:"+o.Socket, nil
	}
	if err != nil {
		return endpoint.Target{}, err
	}
	t := endpoint.Target{Addr: addr, DB: o.DBNum, Protocol: 2, Timeout: o.Timeout, Cluster: o.Cluster}
	if o.User != "" {
		t.User, t.Password = o.User, o.Password
	} else {
		t.Auth = o.Password
	}
	if o.RESP3 {
		t.Protocol = 3
	}
	if o.TLS || o.CACert != "" || o.Insecure || o.Cert != "" {
		t.TLS = &endpoint.TLS{CAFile: o.CACert, CertFile: o.Cert, KeyFile: o.Key, Insecure: o.Insecure, ServerName: o.SNI}
	}
	t = o.Follow(t)
	return t, t.Validate()
}

// RedactedArgs returns args with the password after -a (and in -u) hidden.
func RedactedArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		switch out[i] {
		case "-a":
			out[i+1] = endpoint.RedactAuth(out[i+1])
		case "-u":
			if u, err := url.Parse(out[i+1]); err == nil && u.User != nil {
				out[i+1] = u.Redacted()
			}
		}
	}
	return out
}
