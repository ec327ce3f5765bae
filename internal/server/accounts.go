package server

import (
	"bytes"
	"strings"
	"sync"

	"github.com/tairbench/tairbench/pkg/resp"
)

// accounts are the server's users: the default user's password
// (--requirepass) and named accounts (--user NAME:PASSWORD, ACL SETUSER),
// each allowed every command and key, as Tair's accounts in the
// whitepaper's setup are.
type accounts struct {
	mu    sync.RWMutex
	users map[string]string // name → password
}

func newAccounts(cfg Config) *accounts {
	a := &accounts{users: map[string]string{}}
	for name, pw := range cfg.Users {
		a.users[name] = pw
	}
	return a
}

// authRequired reports whether clients must log in.
func (s *Server) authRequired() bool { return s.cfg.Password != "" || len(s.cfg.Users) > 0 }

func (a *accounts) check(name, pw string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	want, ok := a.users[name]
	return ok && want == pw
}

func (a *accounts) set(name, pw string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.users[name] = pw
}

const wrongPass = "WRONGPASS invalid username-password pair or user is disabled."

// checkAuth accepts AUTH's forms: "password" (the default user), "user
// password" (an ACL login), and Tair's single "user:password". It returns
// the user logged in.
func (c *conn) checkAuth(creds [][]byte) (string, bool, string) {
	pw := c.s.cfg.Password
	switch len(creds) {
	case 1:
		arg := string(creds[0])
		if pw != "" && arg == pw {
			return "default", true, ""
		}
		if name, p, ok := strings.Cut(arg, ":"); ok {
			if name == "default" && pw != "" && p == pw {
				return "default", true, ""
			}
			if name != "default" && c.s.accounts.check(name, p) {
				return name, true, ""
			}
		}
		if !c.s.authRequired() {
			return "", false, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
		}
	case 2:
		name, p := string(creds[0]), string(creds[1])
		if name == "default" {
			if pw == "" && !c.s.authRequired() || pw != "" && p == pw {
				return "default", true, ""
			}
		} else if c.s.accounts.check(name, p) {
			return name, true, ""
		}
	}
	return "", false, wrongPass
}

func cmdAuth(c *conn, a [][]byte) {
	if len(a) > 3 {
		c.out = resp.AppendError(c.out, "ERR syntax error")
		return
	}
	user, ok, msg := c.checkAuth(a[1:])
	if !ok {
		c.out = resp.AppendError(c.out, msg)
		return
	}
	c.login(user)
	c.out = resp.AppendOK(c.out)
}

// cmdACL supports WHOAMI and the SETUSER subset that creates or updates an
// account allowed every command and key.
func cmdACL(c *conn, a [][]byte) {
	switch strings.ToLower(string(a[1])) {
	case "whoami":
		c.out = resp.AppendBulkString(c.out, c.userName())
	case "setuser":
		if len(a) < 3 {
			c.out = resp.AppendError(c.out, "ERR wrong number of arguments for 'acl|setuser' command")
			return
		}
		name := string(a[2])
		on, pw := false, ""
		for _, r := range a[3:] {
			switch rule := string(r); {
			case strings.EqualFold(rule, "on"):
				on = true
			case strings.HasPrefix(rule, ">"):
				pw = rule[1:]
			case bytes.EqualFold(r, []byte("allcommands")), bytes.EqualFold(r, []byte("+@all")),
				bytes.EqualFold(r, []byte("allkeys")), rule == "~*", rule == "&*", bytes.EqualFold(r, []byte("allchannels")),
				bytes.EqualFold(r, []byte("reset")):
			default:
				c.out = resp.AppendError(c.out, "ERR the embedded server's ACL SETUSER creates accounts with every command and key; rule '"+printable(r)+"' is not supported")
				return
			}
		}
		if !on || pw == "" {
			c.out = resp.AppendError(c.out, "ERR the embedded server's ACL SETUSER needs 'on' and '>password'")
			return
		}
		if name == "default" {
			c.out = resp.AppendError(c.out, "ERR the default user's password is --requirepass")
			return
		}
		c.s.accounts.set(name, pw)
		c.out = resp.AppendOK(c.out)
	default:
		c.out = resp.AppendError(c.out, "ERR unknown subcommand '"+printable(a[1])+"'. Try ACL HELP.")
	}
}

func (c *conn) userName() string {
	if c.user == "" {
		return "default"
	}
	return c.user
}
