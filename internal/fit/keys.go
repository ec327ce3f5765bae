package fit

import (
	"regexp"
	"strings"
)

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
