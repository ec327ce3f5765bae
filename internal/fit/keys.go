package fit

import (
	"regexp"
	"strings"
)

// keyless are commands that name no key (their first argument is not one).
var keyless = map[string]bool{
	"PING": true, "ECHO": true, "INFO": true, "SELECT": true, "MULTI": true, "EXEC": true, "DISCARD": true,
	"UNWATCH": true, "AUTH": true, "HELLO": true, "CLIENT": true, "CONFIG": true, "COMMAND": true, "SCAN": true,
	"KEYS": true, "DBSIZE": true, "FLUSHALL": true, "FLUSHDB": true, "TIME": true, "PUBLISH": true, "SUBSCRIBE": true,
	"PSUBSCRIBE": true, "UNSUBSCRIBE": true, "PUNSUBSCRIBE": true, "SCRIPT": true, "FUNCTION": true, "SLOWLOG": true,
	"LATENCY": true, "MEMORY": true, "CLUSTER": true, "READONLY": true, "READWRITE": true, "WAIT": true, "QUIT": true,
	"RESET": true, "SAVE": true, "BGSAVE": true, "BGREWRITEAOF": true, "LASTSAVE": true, "MONITOR": true, "ACL": true,
	"RANDOMKEY": true, "SWAPDB": true, "DEBUG": true, "MODULE": true, "SHUTDOWN": true, "ROLE": true, "LOLWUT": true,
}

// allKeys are commands whose every argument is a key.
var allKeys = map[string]bool{"MGET": true, "DEL": true, "UNLINK": true, "EXISTS": true, "TOUCH": true, "WATCH": true,
	"SINTER": true, "SUNION": true, "SDIFF": true, "PFCOUNT": true}

// Keys returns the positions of a command's keys among its arguments
// (the name first), from what tairbench knows of Redis's commands: the
// first argument of most; every argument of MGET, DEL, …; every other of
// MSET; EVAL's numkeys. Nil for a command that names none.
func Keys(name string, n int) []int {
	switch {
	case n < 2 || keyless[name]:
		return nil
	case allKeys[name]:
		return span(1, n, 1)
	case name == "MSET" || name == "MSETNX":
		return span(1, n, 2)
	case name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO" || name == "FCALL":
		return nil // their keys follow numkeys: left unpatterned
	case name == "BITOP" && n > 2:
		return span(2, n, 1)
	case name == "RENAME" || name == "RENAMENX" || name == "SMOVE" || name == "RPOPLPUSH" || name == "LMOVE" || name == "COPY":
		return []int{1, 2}[:min(2, n-1)]
	}
	return []int{1}
}

func span(from, n, step int) []int {
	var out []int
	for i := from; i < n; i += step {
		out = append(out, i)
	}
	return out
}

// separators split a key into segments.
const separators = ":.-_/|{}#@="

// uuid matches a UUID in a key.
var uuid = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// Pattern is a key with its id segments replaced: runs of digits become
// {id} (a segment's trailing digits too: "user42" is "user{id}"), long
// hexadecimal runs {hex}, UUIDs {uuid} ("user:42:cart" is
// "user:{id}:cart"); with it, the key's first id as a number (−1: none).
func Pattern(key string) (string, int64) {
	if len(key) >= 36 && strings.Count(key, "-") >= 4 {
		key = uuid.ReplaceAllLiteralString(key, "{uuid}")
	}
	var b strings.Builder
	id := int64(-1)
	start := 0
	for i := 0; i <= len(key); i++ {
		if i < len(key) && !strings.ContainsRune(separators, rune(key[i])) {
			continue
		}
		seg := key[start:i]
		kind, digits := segmentKind(seg)
		b.WriteString(kind)
		if digits != "" && id < 0 && len(digits) <= 18 {
			id = parseDigits(digits)
		}
		if i < len(key) {
			b.WriteByte(key[i])
		}
		start = i + 1
	}
	return b.String(), id
}

// segmentKind is a segment as its pattern writes it, and the digits of
// its id when it has one.
func segmentKind(s string) (string, string) {
	if s == "" || s == "{uuid}" {
		return s, ""
	}
	hex := true
	lead := -1 // where the trailing digits start
	for i := 0; i < len(s); i++ {
		c := s[i]
		isDigit := c >= '0' && c <= '9'
		hex = hex && (isDigit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')
		switch {
		case !isDigit:
			lead = -1
		case lead < 0:
			lead = i
		}
	}
	switch {
	case lead == 0:
		return "{id}", s
	case hex && len(s) >= 8 && strings.ContainsAny(s, "0123456789"):
		return "{hex}", ""
	case lead > 0 && !strings.ContainsAny(s[:lead], "0123456789"):
		return s[:lead] + "{id}", s[lead:]
	}
	return s, ""
}

func parseDigits(s string) int64 {
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n
}
