// Package anonymize rewrites a trace's records so that it can leave the
// building: each key keeps its shape (its literal segments), its ids
// (runs of digits, hexadecimal runs, UUIDs) mapped one to one to new ids
// of the same kind and length; each value becomes as many bytes of
// filler; other arguments are kept when they are numbers or keywords
// (EX, WITHSCORES) and filled over otherwise. The command's name is kept.
package anonymize

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
	"github.com/tairbench/tairbench/internal/keyshape"
	"github.com/tairbench/tairbench/internal/trace"
)

// filler replaces a value's bytes.
const filler = 'x'

// Anonymizer keeps the id mapping of one trace: the same id maps to the
// same new id wherever it comes.
type Anonymizer struct {
	ids  map[string]string
	next [4]uint64 // per kind
	b    strings.Builder
}

// New returns an anonymizer with an empty mapping.
func New() *Anonymizer { return &Anonymizer{ids: map[string]string{}} }

// Record rewrites the record's arguments (new slices; the old ones are
// not touched).
func (a *Anonymizer) Record(r *trace.Record) {
	name := strings.ToUpper(string(r.Args[0]))
	keys := commands.KeyPositions(name, len(r.Args))
	values := commands.ValuePositions(name, len(r.Args))
	out := make([][]byte, len(r.Args))
	out[0] = r.Args[0]
	for i := 1; i < len(r.Args); i++ {
		switch arg := r.Args[i]; {
		case slices.Contains(keys, i):
			out[i] = []byte(a.Key(string(arg)))
		case !slices.Contains(values, i) && keep(arg):
			out[i] = arg
		default:
			out[i] = fill(len(arg))
		}
	}
	r.Args = out
}

// Key is a key with its ids mapped.
func (a *Anonymizer) Key(key string) string {
	a.b.Reset()
	keyshape.Walk(key, func(k keyshape.Kind, s string) {
		if k == keyshape.Literal {
			a.b.WriteString(s)
			return
		}
		a.b.WriteString(a.id(k, s))
	})
	return a.b.String()
}

// id maps one id: the first seen becomes 1 (0…01 at its length), the
// next 2, in its kind's notation.
func (a *Anonymizer) id(k keyshape.Kind, s string) string {
	m := strconv.Itoa(int(k)) + s
	if v, ok := a.ids[m]; ok {
		return v
	}
	a.next[k]++
	n := a.next[k]
	var v string
	switch k {
	case keyshape.ID:
		v = fmt.Sprintf("%0*d", len(s), n)
	case keyshape.Hex: // a letter first, so that it reads as hexadecimal again
		v = "f" + fmt.Sprintf("%0*x", len(s)-1, n)
	default: // a UUID
		h := fmt.Sprintf("%032x", n)
		v = h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	a.ids[m] = v
	return v
}

// keep says whether an argument tells the command's shape, not the
// user's data: a number, or a keyword (upper-case letters, at most 16).
func keep(b []byte) bool {
	if _, err := strconv.ParseFloat(string(b), 64); err == nil && len(b) <= 24 {
		return true
	}
	if len(b) == 0 || len(b) > 16 {
		return false
	}
	for _, c := range b {
		if (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

func fill(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = filler
	}
	return b
}
