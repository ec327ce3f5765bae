// Package cmdtmpl parses command templates such as
// "TR.SETBIT foo-__RAND__ __RAND2__ 1" and expands them into RESP requests
// without allocating per request.
//
// Placeholders (anywhere inside an argument):
//
//	__RAND__            a number drawn from range 1 (the -r flag)
//	__RAND2__ … __RAND9__  a number drawn from range 2 … 9
//	__RAND{tag}__, __RAND3{tag}__
//	                    every occurrence with the same range and tag in one
//	                    command shares one drawn value
//	__RAND3{tag}+W__    the tag's value plus W, at most the range's top
//	                    (the end of a range query that starts at the value)
//	__DATA__            a value of the configured size whose content varies
//
// Every untagged occurrence is drawn independently.
package cmdtmpl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxRanges is the number of named ranges: __RAND__ is range 1, __RAND9__ range 9.
const MaxRanges = 9

type segKind uint8

const (
	segLit segKind = iota
	segRand
	segRandPlus // a tagged value plus add, at most the range's top
	segData
)

type segment struct {
	kind segKind
	lit  []byte
	rng  int // 1..9 for segRand
	slot int // index of a shared value, or -1 for an independent draw
	// add is added to a tagged value (at most the range's top).
	add uint64
}

type arg struct {
	segs []segment
	// enc is the complete RESP encoding ("$len\r\nvalue\r\n") of a literal argument.
	enc []byte
}

// Template is a parsed command line. It is immutable and safe to share; each
// worker expands it through its own Gen.
type Template struct {
	src    string
	args   []arg
	slots  int                 // number of distinct tagged values per command
	ranges [MaxRanges + 1]bool // which ranges the template uses
	data   bool                // uses __DATA__
}

// Source returns the template text as given.
func (t *Template) Source() string { return t.src }

// NumArgs returns the number of arguments, command name included.
func (t *Template) NumArgs() int { return len(t.args) }

// UsesRange reports whether the template contains a placeholder of range n (1..9).
func (t *Template) UsesRange(n int) bool { return n >= 1 && n <= MaxRanges && t.ranges[n] }

// UsesData reports whether the template contains __DATA__.
func (t *Template) UsesData() bool { return t.data }

// Name returns the command name (the first argument) in upper case.
func (t *Template) Name() string {
	if len(t.args) == 0 || len(t.args[0].segs) != 1 || t.args[0].segs[0].kind != segLit {
		return ""
	}
	return strings.ToUpper(string(t.args[0].segs[0].lit))
}

// ErrEmpty is returned for a template with no arguments.
var ErrEmpty = errors.New("empty command template")

// Parse splits a command line into arguments (double quotes with backslash
// escapes, or single quotes, for arguments with spaces) and compiles the
// placeholders of each argument.
func Parse(line string) (*Template, error) {
	words, err := Split(line)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, ErrEmpty
	}
	t := &Template{src: line}
	tags := map[string]int{}
	for i, w := range words {
		a, err := compileArg(w, t, tags)
		if err != nil {
			return nil, fmt.Errorf("argument %d %q: %w", i+1, w, err)
		}
		t.args = append(t.args, a)
	}
	return t, nil
}

func compileArg(w string, t *Template, tags map[string]int) (arg, error) {
	var a arg
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			a.segs = append(a.segs, segment{kind: segLit, lit: lit})
			lit = nil
		}
	}
	for i := 0; i < len(w); {
		if strings.HasPrefix(w[i:], "__DATA__") {
			flush()
			a.segs = append(a.segs, segment{kind: segData, slot: -1})
			t.data = true
			i += len("__DATA__")
			continue
		}
		if strings.HasPrefix(w[i:], "__RAND") {
			seg, n, err := parseRand(w[i:], tags)
			if err != nil {
				return a, err
			}
			if n > 0 {
				flush()
				a.segs = append(a.segs, seg)
				t.ranges[seg.rng] = true
				if seg.slot >= t.slots {
					t.slots = seg.slot + 1
				}
				i += n
				continue
			}
		}
		lit = append(lit, w[i])
		i++
	}
	flush()
	if len(a.segs) == 0 {
		a.segs = []segment{{kind: segLit, lit: []byte{}}}
	}
	if len(a.segs) == 1 && a.segs[0].kind == segLit {
		v := a.segs[0].lit
		a.enc = fmt.Appendf(nil, "$%d\r\n%s\r\n", len(v), v)
	}
	return a, nil
}

// parseRand parses a placeholder at the start of s ("__RAND…"). It returns
// the number of bytes consumed, or 0 when s is not a placeholder after all
// (then the text is kept literally).
func parseRand(s string, tags map[string]int) (segment, int, error) {
	seg := segment{kind: segRand, rng: 1, slot: -1}
	i := len("__RAND")
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		digits := s[i:j]
		if len(digits) != 1 || digits[0] < '2' {
			if strings.HasPrefix(s[j:], "__") || strings.HasPrefix(s[j:], "{") {
				return seg, 0, fmt.Errorf("unknown placeholder __RAND%s__: ranges are __RAND__ and __RAND2__ … __RAND9__", digits)
			}
			return seg, 0, nil
		}
		seg.rng = int(digits[0] - '0')
		i = j
	}
	if i < len(s) && s[i] == '{' {
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return seg, 0, fmt.Errorf("unterminated tag in %q", s)
		}
		tag := s[i+1 : i+end]
		if tag == "" {
			return seg, 0, errors.New("empty tag in placeholder")
		}
		key := fmt.Sprintf("%d{%s}", seg.rng, tag)
		slot, ok := tags[key]
		if !ok {
			slot = len(tags)
			tags[key] = slot
		}
		seg.slot = slot
		i += end + 1
		if i < len(s) && s[i] == '+' {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			add, err := strconv.ParseUint(s[i+1:j], 10, 64)
			if err != nil {
				return seg, 0, fmt.Errorf("in %q: +W after a tag is a whole number", s)
			}
			seg.kind, seg.add, i = segRandPlus, add, j
		}
	}
	if !strings.HasPrefix(s[i:], "__") {
		if seg.slot >= 0 {
			return seg, 0, fmt.Errorf("placeholder with a tag must end with __")
		}
		return seg, 0, nil
	}
	return seg, i + 2, nil
}

// Split splits a command line into words like a shell does: blanks separate
// words; "double quotes" allow \" \\ \n \r \t \xHH escapes; 'single quotes'
// are literal.
func Split(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(line); i++ {
				c = line[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '\\' && i+1 < len(line) {
					i++
					switch e := line[i]; e {
					case 'n':
						cur.WriteByte('\n')
					case 'r':
						cur.WriteByte('\r')
					case 't':
						cur.WriteByte('\t')
					case 'x':
						if i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2]) {
							cur.WriteByte(unhex(line[i+1])<<4 | unhex(line[i+2]))
							i += 2
						} else {
							cur.WriteByte('x')
						}
					default:
						cur.WriteByte(e)
					}
					continue
				}
				cur.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("unterminated double quote at byte %d", len(line))
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote at byte %d", i+1)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// Quote writes a literal argument as Split reads it back: as it is when
// that is one plain word, otherwise in double quotes, with \", \\ and
// control bytes escaped, other bytes as they are.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r\"'\\") && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
