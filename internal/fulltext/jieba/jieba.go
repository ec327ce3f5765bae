// Package jieba segments Chinese text into words as the jieba segmenter does:
// a prefix dictionary gives every way to cut a run of characters, the most
// probable cut wins (dynamic programming over word frequencies), and runs of
// characters the dictionary does not know are cut by jieba's HMM (Viterbi over
// B/M/E/S states). The dictionary is jieba's own, embedded compressed and
// loaded on first use; the HMM model and Viterbi come from go-ego/gse.
package jieba

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/go-ego/gse/hmm"
)

//go:embed dict.txt.gz
var dictGz []byte

// dictionary is the frequency table: words with their counts and every
// word's prefixes with 0 (present, but not a word), as jieba keeps them.
type dictionary struct {
	freq  map[string]int64
	total int64
}

var base struct {
	once sync.Once
	dict *dictionary
	err  error
}

// loadBase parses the embedded dictionary once per process.
func loadBase() (*dictionary, error) {
	base.once.Do(func() {
		base.dict, base.err = parseDict(dictGz)
		hmm.LoadModel() // jieba's start, transition and emission tables
	})
	return base.dict, base.err
}

func parseDict(gz []byte) (*dictionary, error) {
	d := &dictionary{freq: make(map[string]int64, 600000)}
	err := entries(gz, func(word string, n int64, _ string) {
		d.freq[word] = n
		d.total += n
		for i := range word {
			if i == 0 {
				continue
			}
			if _, ok := d.freq[word[:i]]; !ok {
				d.freq[word[:i]] = 0
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Segmenter cuts text with the base dictionary plus its own user words.
// It is read-only once built and safe for concurrent use.
type Segmenter struct {
	base  *dictionary
	user  map[string]int64
	total int64
}

// New loads the dictionary (once per process) and adds the user words in
// order, each with the frequency jieba's add_word gives a word without one:
// just enough for the word to be cut whole.
func New(userWords []string) (*Segmenter, error) {
	d, err := loadBase()
	if err != nil {
		return nil, err
	}
	s := &Segmenter{base: d, total: d.total}
	for _, w := range userWords {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		s.addWord(w)
	}
	return s, nil
}

// DictionaryBytes is the size of the embedded, compressed dictionary.
func DictionaryBytes() int { return len(dictGz) }

func (s *Segmenter) lookup(w string) (int64, bool) {
	if s.user != nil {
		if v, ok := s.user[w]; ok {
			return v, true
		}
	}
	v, ok := s.base.freq[w]
	return v, ok
}

// suggestFreq is the frequency that makes word win over its own cut.
func (s *Segmenter) suggestFreq(word string) int64 {
	ftotal := float64(s.total)
	f := 1.0
	s.Cut(word, false, func(a, b int, w string) {
		v, ok := s.lookup(w)
		if !ok {
			v = 1
		}
		f *= float64(v) / ftotal
	})
	n := int64(f*float64(s.total)) + 1
	if v, ok := s.lookup(word); !ok {
		n = max(n, 1)
	} else {
		n = max(n, v)
	}
	return n
}

func (s *Segmenter) addWord(word string) {
	freq := s.suggestFreq(word)
	if s.user == nil {
		s.user = map[string]int64{}
	}
	s.user[word] = freq
	s.total += freq
	for i := range word {
		if i == 0 {
			continue
		}
		if _, ok := s.lookup(word[:i]); !ok {
			s.user[word[:i]] = 0
		}
	}
}

// inBlock reports the characters jieba cuts with the dictionary: CJK
// ideographs, ASCII letters and digits and + # & . _ % -.
func inBlock(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FD5, r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("+#&._%-", r)
}

func isHan(r rune) bool { return r >= 0x4E00 && r <= 0x9FD5 }

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// text is the input with the byte offset of every character.
type text struct {
	s     string
	runes []rune
	offs  []int
}

func (t *text) sub(a, b int) string { return t.s[t.offs[a]:t.offs[b]] }

// Cut calls emit for every word of s in order, with its character offsets
// [start, end) and its text; hmm cuts unknown runs with the HMM as jieba's
// default mode does. Every character of s is in exactly one word, spaces and
// punctuation included (as single-character words).
func (s *Segmenter) Cut(str string, hmm bool, emit func(start, end int, word string)) {
	t := text{s: str, runes: make([]rune, 0, len(str)), offs: make([]int, 0, len(str)+1)}
	for i, r := range str {
		t.runes = append(t.runes, r)
		t.offs = append(t.offs, i)
	}
	t.offs = append(t.offs, len(str))
	n := len(t.runes)
	for i := 0; i < n; {
		j := i
		if inBlock(t.runes[i]) {
			for j < n && inBlock(t.runes[j]) {
				j++
			}
			s.cutBlock(&t, i, j, hmm, emit)
			i = j
			continue
		}
		for j < n && !inBlock(t.runes[j]) {
			j++
		}
		for k := i; k < j; {
			if t.runes[k] == '\r' && k+1 < j && t.runes[k+1] == '\n' {
				emit(k, k+2, t.sub(k, k+2))
				k += 2
				continue
			}
			emit(k, k+1, t.sub(k, k+1))
			k++
		}
		i = j
	}
}

// CutForSearch is jieba's search mode (cut_for_search): every word of Cut,
// each preceded by its two- and three-character runs that are dictionary
// words (two-character runs of words longer than two characters, then
// three-character runs of words longer than three), in jieba's order.
func (s *Segmenter) CutForSearch(str string, hmm bool, emit func(start, end int, word string)) {
	s.CutForSearchMin(str, hmm, 1, emit)
}

// CutForSearchMin is CutForSearch keeping only the sub-words whose
// dictionary frequency is at least minFreq (the word itself is always
// emitted).
func (s *Segmenter) CutForSearchMin(str string, hmm bool, minFreq int64, emit func(start, end int, word string)) {
	s.Cut(str, hmm, func(start, end int, w string) {
		if n := end - start; n > 2 {
			rs := []rune(w)
			for _, g := range [2]int{2, 3} {
				if n <= g {
					break
				}
				for i := 0; i+g <= n; i++ {
					if sub := string(rs[i : i+g]); s.freqAtLeast(sub, minFreq) {
						emit(start+i, start+i+g, sub)
					}
				}
			}
		}
		emit(start, end, w)
	})
}

// freqAtLeast says whether w is a word of the dictionary with a frequency
// of at least min.
func (s *Segmenter) freqAtLeast(w string, min int64) bool {
	f, ok := s.lookup(w)
	return ok && f >= min && f > 0
}

// Words returns the words of s (a convenience for tests and tools).
func (s *Segmenter) Words(str string, hmm bool) []string {
	var out []string
	s.Cut(str, hmm, func(_, _ int, w string) { out = append(out, w) })
	return out
}

// SearchWords returns the words of s in search mode.
func (s *Segmenter) SearchWords(str string, hmm bool) []string {
	var out []string
	s.CutForSearch(str, hmm, func(_, _ int, w string) { out = append(out, w) })
	return out
}

type step struct {
	logp float64
	end  int // the chosen word is [i, end]
}

// routes computes, for every position of the block [a, b), the best cut of
// the rest: the word starting there that maximizes the total log frequency,
// ties going to the longer word, as jieba's calc does.
func (s *Segmenter) routes(t *text, a, b int) []step {
	n := b - a
	route := make([]step, n+1)
	logTotal := math.Log(float64(s.total))
	var dag []int
	for idx := n - 1; idx >= 0; idx-- {
		dag = dag[:0]
		for i := idx; i < n; i++ {
			v, ok := s.lookup(t.sub(a+idx, a+i+1))
			if !ok {
				break
			}
			if v > 0 {
				dag = append(dag, i)
			}
		}
		if len(dag) == 0 {
			dag = append(dag, idx)
		}
		best := step{logp: math.Inf(-1), end: -1}
		for _, x := range dag {
			v, _ := s.lookup(t.sub(a+idx, a+x+1))
			if v == 0 {
				v = 1
			}
			p := math.Log(float64(v)) - logTotal + route[x+1].logp
			if p > best.logp || p == best.logp && x > best.end {
				best = step{logp: p, end: x}
			}
		}
		route[idx] = best
	}
	return route
}

func (s *Segmenter) cutBlock(t *text, a, b int, useHMM bool, emit func(int, int, string)) {
	route := s.routes(t, a, b)
	n := b - a
	if !useHMM {
		buf := -1 // start of a run of single ASCII letters or digits
		for x := 0; x < n; {
			y := route[x].end + 1
			if y-x == 1 && isASCIIAlnum(t.runes[a+x]) {
				if buf < 0 {
					buf = x
				}
				x = y
				continue
			}
			if buf >= 0 {
				emit(a+buf, a+x, t.sub(a+buf, a+x))
				buf = -1
			}
			emit(a+x, a+y, t.sub(a+x, a+y))
			x = y
		}
		if buf >= 0 {
			emit(a+buf, b, t.sub(a+buf, b))
		}
		return
	}
	buf := -1 // start of a run of single characters
	flush := func(end int) {
		if buf < 0 {
			return
		}
		switch {
		case end-buf == 1:
			emit(a+buf, a+end, t.sub(a+buf, a+end))
		default:
			if v, _ := s.lookup(t.sub(a+buf, a+end)); v == 0 {
				s.cutUnknown(t, a+buf, a+end, emit)
			} else {
				for k := buf; k < end; k++ {
					emit(a+k, a+k+1, t.sub(a+k, a+k+1))
				}
			}
		}
		buf = -1
	}
	for x := 0; x < n; {
		y := route[x].end + 1
		if y-x == 1 {
			if buf < 0 {
				buf = x
			}
		} else {
			flush(x)
			emit(a+x, a+y, t.sub(a+x, a+y))
		}
		x = y
	}
	flush(n)
}

// cutUnknown is jieba's finalseg: Han runs go through the HMM; the rest is
// split into ASCII words or numbers (with an optional decimal part and %)
// and what lies between them.
func (s *Segmenter) cutUnknown(t *text, a, b int, emit func(int, int, string)) {
	for i := a; i < b; {
		j := i
		if isHan(t.runes[i]) {
			for j < b && isHan(t.runes[j]) {
				j++
			}
			viterbiCut(t, i, j, emit)
			i = j
			continue
		}
		for j < b && !isHan(t.runes[j]) {
			j++
		}
		// [i, j) has no Han: split around [a-zA-Z0-9]+(\.\d+)?%? matches.
		k, gap := i, i
		for k < j {
			if !isASCIIAlnum(t.runes[k]) {
				k++
				continue
			}
			m := k
			for m < j && isASCIIAlnum(t.runes[m]) {
				m++
			}
			if m+1 < j && t.runes[m] == '.' && unicode.IsDigit(t.runes[m+1]) {
				m += 2
				for m < j && unicode.IsDigit(t.runes[m]) {
					m++
				}
			}
			if m < j && t.runes[m] == '%' {
				m++
			}
			if gap < k {
				emit(gap, k, t.sub(gap, k))
			}
			emit(k, m, t.sub(k, m))
			k, gap = m, m
		}
		if gap < j {
			emit(gap, j, t.sub(gap, j))
		}
		i = j
	}
}

var states = []byte{'B', 'M', 'E', 'S'}

// viterbiCut cuts a run of Han characters by its most probable B/M/E/S tags.
func viterbiCut(t *text, a, b int, emit func(int, int, string)) {
	_, tags := hmm.Viterbi(t.runes[a:b], states)
	begin, next := 0, 0
	for i := range b - a {
		switch tags[i] {
		case 'B':
			begin = i
		case 'E':
			emit(a+begin, a+i+1, t.sub(a+begin, a+i+1))
			next = i + 1
		case 'S':
			emit(a+i, a+i+1, t.sub(a+i, a+i+1))
			next = i + 1
		}
	}
	if next < b-a {
		emit(a+next, b, t.sub(a+next, b))
	}
}

// Entries calls fn for every entry of the embedded dictionary, in file
// order: the word, its frequency and its part-of-speech tag (jieba's, as
// "n" for a noun; "" when the line has none).
func Entries(fn func(word string, freq int64, tag string)) error { return entries(dictGz, fn) }

// entries parses a gzipped jieba dictionary ("word freq [tag]" lines),
// refusing a line without a frequency.
func entries(gz []byte, fn func(word string, freq int64, tag string)) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return fmt.Errorf("jieba dictionary: %w", err)
	}
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		parts := strings.SplitN(text, " ", 3)
		if len(parts) < 2 {
			return fmt.Errorf("jieba dictionary line %d: no frequency", line)
		}
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return fmt.Errorf("jieba dictionary line %d: %w", line, err)
		}
		tag := ""
		if len(parts) == 3 {
			tag = parts[2]
		}
		fn(parts[0], n, tag)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("jieba dictionary: %w", err)
	}
	return nil
}
