package cli

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// listening says whether something accepts TCP connections at host:port.
func listening(host string, port int) bool {
	if port < 1 || port > 65535 {
		return false
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// countTrap warns when a flag that counts connections (redis -p, search
// -c) was given a value that looks like a port: above 1,000 with a
// server listening on it at the target host. hostOnly is the target's
// host; portFlag names the flag that takes the port.
func countTrap(w io.Writer, fs *pflag.FlagSet, countFlag, portFlag, hostOnly, tool string, n int) {
	f := fs.Lookup(countFlag)
	if f == nil || !fs.Changed(countFlag) || (portFlag != "" && fs.Changed(portFlag)) || n <= 1000 {
		return
	}
	if listening(hostOnly, n) {
		fmt.Fprintf(w, "!! WARNING: -%s %d means %d connections here (%s flag), and a server listens on %s:%d: for that port, give %s\n",
			f.Shorthand, n, n, tool, hostOnly, n, portHint(portFlag, n))
	}
}

func portHint(portFlag string, n int) string {
	if portFlag == "" {
		return fmt.Sprintf("-a HOST:%d", n)
	}
	return fmt.Sprintf("-%s %d", portFlag, n)
}

// redisTraps warns on the redis command's flags that trap users of
// redis-cli and redis-benchmark: -p is connections, the port is -port.
func redisTraps(w io.Writer, fs *pflag.FlagSet, host string, parallel int) {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	countTrap(w, fs, "parallel", "port", h, "the whitepaper tool's", parallel)
	if fs.Changed("host") && fs.Changed("parallel") && !fs.Changed("port") && !strings.Contains(host, ":") && parallel <= 1000 {
		fmt.Fprintf(w, "!! WARNING: -h and -p without -port: -p %d is the number of connections here (the whitepaper tool's flag); the port is -port (6379 by default)\n", parallel)
	}
}

// searchTraps: TairSearchBench's -a is the address and -c the
// connections; a password given to -a (redis-cli's habit) is refused, and
// a -c that looks like a port with a server on it is warned about.
func searchTraps(w io.Writer, fs *pflag.FlagSet, addr string, concurrency int) error {
	if fs.Changed("addr") && !strings.Contains(addr, ":") {
		return fmt.Errorf("-a %q: -a is the server's address here (TairSearchBench's flag: host:port, or http://host:port for Elasticsearch); the password is --auth", addr)
	}
	host := "127.0.0.1"
	if u := strings.TrimPrefix(strings.TrimPrefix(addr, "http://"), "https://"); u != "" {
		if h, _, err := net.SplitHostPort(strings.TrimSuffix(u, "/")); err == nil {
			host = h
		}
	}
	countTrap(w, fs, "concurrency", "", host, "TairSearchBench's", concurrency)
	return nil
}
