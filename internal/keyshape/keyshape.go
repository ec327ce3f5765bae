// Package keyshape reads a key's shape: its literal segments and its ids
// (runs of digits, long hexadecimal runs, UUIDs), so that a fit can group
// keys into patterns (user:{id}:cart) and an anonymizer can map the ids
// and keep the rest. It is plain logic: it imports nothing of tairbench.
package keyshape

import (
	"regexp"
	"strings"
)

// Kind is what a piece of a key is.
type Kind int

const (
	// Literal is a piece kept as it is (a word, a separator).
	Literal Kind = iota
	// ID is a run of digits: a segment of them, or a segment's trailing ones.
	ID
	// Hex is a segment of 8 or more hexadecimal digits, one a digit at least.
	Hex
	// UUID is a UUID.
	UUID
)

// Placeholder is how a pattern writes an id of the kind.
func (k Kind) Placeholder() string {
	return [...]string{"", "{id}", "{hex}", "{uuid}"}[k]
}

// separators split a key into segments.
const separators = ":.-_/|{}#@="

// uuid matches a UUID in a key.
var uuid = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// Walk hands each piece of key to fn, in order; the pieces make up the key.
func Walk(key string, fn func(k Kind, s string)) {
	start := 0
	if len(key) >= 36 && strings.Count(key, "-") >= 4 {
		for _, m := range uuid.FindAllStringIndex(key, -1) {
			segments(key[start:m[0]], fn)
			fn(UUID, key[m[0]:m[1]])
			start = m[1]
		}
	}
	segments(key[start:], fn)
}

// segments walks a stretch with no UUID: its segments between separators.
func segments(s string, fn func(k Kind, s string)) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !strings.ContainsRune(separators, rune(s[i])) {
			continue
		}
		segment(s[start:i], fn)
		if i < len(s) {
			fn(Literal, s[i:i+1])
		}
		start = i + 1
	}
}

// segment walks one segment: an id, a hexadecimal run, a word and its
// trailing digits, or a word.
func segment(s string, fn func(k Kind, s string)) {
	if s == "" {
		return
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
		fn(ID, s)
	case hex && len(s) >= 8 && strings.ContainsAny(s, "0123456789"):
		fn(Hex, s)
	case lead > 0 && !strings.ContainsAny(s[:lead], "0123456789"):
		fn(Literal, s[:lead])
		fn(ID, s[lead:])
	default:
		fn(Literal, s)
	}
}

// Pattern is a key with its ids replaced by their placeholders
// ("user:42:cart" is "user:{id}:cart", "user42" is "user{id}"), and the
// key's first ID as a number (−1: none).
func Pattern(key string) (string, int64) {
	var b strings.Builder
	id := int64(-1)
	Walk(key, func(k Kind, s string) {
		if k == Literal {
			b.WriteString(s)
			return
		}
		b.WriteString(k.Placeholder())
		if k == ID && id < 0 && len(s) <= 18 {
			id = 0
			for i := 0; i < len(s); i++ {
				id = id*10 + int64(s[i]-'0')
			}
		}
	})
	return b.String(), id
}
