// Package fulltext is the full-text engine behind the embedded server's
// TairSearch (TFT.*) module: mappings, analyzers, an inverted index over
// roaring bitmaps with doc values, the ES-like query DSL, aggregations and
// TairSearch's response JSON.
package fulltext

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"

	"github.com/tairbench/tairbench/internal/fulltext/jieba"
)

// Token is one analyzed token. Offsets are in characters, as TairSearch reports them.
type Token struct {
	Term       string
	Start, End int
	Position   int
}

// Analyzer turns text into tokens.
type Analyzer interface {
	Analyze(text string) []Token
}

// stopWords are Lucene's English stop words, which TairSearch's standard
// analyzer removes (positions still advance over them).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		m[w] = true
	}
	return m
}()

// unicodeTokenizer splits text at Unicode word boundaries (UAX#29, as
// Lucene's StandardTokenizer does) and keeps words, numbers and ideographs.
func unicodeTokens(text string, lower, stop, hanChars bool) []Token {
	var toks []Token
	seg := segment.NewWordSegmenterDirect([]byte(text))
	byteOff, charOff, pos := 0, 0, 0
	for seg.Segment() {
		b := seg.Bytes()
		n := utf8.RuneCount(b)
		typ := seg.Type()
		start := charOff
		byteOff += len(b)
		charOff += n
		if typ == segment.None {
			continue
		}
		word := string(b)
		if hanChars && typ == segment.Ideo && n > 1 {
			// One token per ideograph.
			i := start
			for _, r := range word {
				toks = append(toks, Token{Term: string(r), Start: i, End: i + 1, Position: pos})
				pos++
				i++
			}
			continue
		}
		if lower {
			word = strings.ToLower(word)
		}
		if stop && stopWords[word] {
			pos++
			continue
		}
		if n > 255 { // Lucene's maximum token length
			continue
		}
		toks = append(toks, Token{Term: word, Start: start, End: start + n, Position: pos})
		pos++
	}
	return toks
}

type standardAnalyzer struct{ stop bool }

func (a standardAnalyzer) Analyze(text string) []Token {
	return unicodeTokens(text, true, a.stop, true)
}

type whitespaceAnalyzer struct{}

func (whitespaceAnalyzer) Analyze(text string) []Token {
	var toks []Token
	pos, char, start := 0, 0, -1
	var b strings.Builder
	emit := func() {
		if start >= 0 {
			toks = append(toks, Token{Term: b.String(), Start: start, End: char, Position: pos})
			pos++
			b.Reset()
			start = -1
		}
	}
	for _, r := range text {
		if unicode.IsSpace(r) {
			emit()
		} else {
			if start < 0 {
				start = char
			}
			b.WriteRune(r)
		}
		char++
	}
	emit()
	return toks
}

// keywordAnalyzer keeps the whole value as one token.
type keywordAnalyzer struct{}

func (keywordAnalyzer) Analyze(text string) []Token {
	return []Token{{Term: text, Start: 0, End: utf8.RuneCountInString(text)}}
}

// chineseAnalyzer splits Han text into single characters (what reproduces
// the SDK tests' scores) and other text as the standard analyzer does.
type chineseAnalyzer struct{}

func (chineseAnalyzer) Analyze(text string) []Token { return unicodeTokens(text, true, true, true) }

// builtinAnalyzer returns a named built-in analyzer.
func builtinAnalyzer(name string) (Analyzer, error) {
	switch name {
	case "", "standard":
		return standardAnalyzer{stop: true}, nil
	case "whitespace":
		return whitespaceAnalyzer{}, nil
	case "keyword":
		return keywordAnalyzer{}, nil
	case "chinese":
		return chineseAnalyzer{}, nil
	case "stop":
		return standardAnalyzer{stop: true}, nil
	case "jieba":
		return defaultJieba()
	case "ik", "ik_smart", "ik_max_word":
		return nil, fmt.Errorf("unsupported analyzer '%s' (the embedded server ships no IK dictionary; jieba is supported)", name)
	}
	return nil, fmt.Errorf("unknown analyzer '%s'", name)
}

// jiebaAnalyzer is Tair's jieba analyzer (tair-api.md 3.8): jieba's search
// mode (a long word also yields its dictionary sub-words, each its own
// token, before it), lower-cased, without spaces, punctuation and the
// Chinese stop words, and with positions counted over every token of the
// cut, the dropped ones included: in "Redis是完全开源免费的，遵守…" 完全 is at 2
// after redis 0 and the dropped 是 1, and 遵守 at 7 after the comma at 6.
// A sub-word needs a dictionary frequency of at least minSubwordFreq.
type jiebaAnalyzer struct {
	seg *jieba.Segmenter
	hmm bool
}

// minSubwordFreq keeps search mode's sub-words to words of some use: the
// reference gives 性能, 高性能 for 高性能, where jieba's dictionary also
// lists the fragment 高性 (and 据库 in 数据库) at frequency 5.
const minSubwordFreq = 10

func (a jiebaAnalyzer) Analyze(text string) []Token {
	var toks []Token
	pos := -1
	a.seg.CutForSearchMin(text, a.hmm, minSubwordFreq, func(start, end int, w string) {
		pos++
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return
		}
		w = strings.ToLower(w)
		if chineseStopWords[w] {
			return
		}
		toks = append(toks, Token{Term: w, Start: start, End: end, Position: pos})
	})
	return toks
}

var builtinJieba struct {
	once sync.Once
	a    Analyzer
	err  error
}

// defaultJieba is the built-in "jieba" analyzer: jieba's dictionary and
// HMM, loaded the first time an index or TFT.ANALYZER asks for it.
func defaultJieba() (Analyzer, error) {
	builtinJieba.once.Do(func() {
		seg, err := jieba.New(nil)
		builtinJieba.a, builtinJieba.err = jiebaAnalyzer{seg: seg, hmm: true}, err
	})
	return builtinJieba.a, builtinJieba.err
}

// customJieba builds {"type":"jieba","userwords":[...],"use_hmm":bool}
// (use_hmm defaults to true, as jieba's does).
func customJieba(def map[string]any) (Analyzer, error) {
	hmm := true
	if v, ok := def["use_hmm"]; ok {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("use_hmm must be true or false")
		}
		hmm = b
	}
	var words []string
	if v, ok := def["userwords"]; ok {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("userwords must be a list of strings")
		}
		for _, w := range list {
			s, ok := w.(string)
			if !ok {
				return nil, fmt.Errorf("userwords must be a list of strings")
			}
			words = append(words, s)
		}
	}
	for k := range def {
		if k != "type" && k != "userwords" && k != "use_hmm" {
			return nil, fmt.Errorf("unsupported jieba analyzer option '%s'", k)
		}
	}
	seg, err := jieba.New(words)
	if err != nil {
		return nil, err
	}
	return jiebaAnalyzer{seg: seg, hmm: hmm}, nil
}

// customAnalyzer builds an analyzer from index settings:
// {"type":"custom","tokenizer":"whitespace"|"standard"} or {"type":"standard"}.
func customAnalyzer(def map[string]any) (Analyzer, error) {
	typ, _ := def["type"].(string)
	switch typ {
	case "custom":
		tok, _ := def["tokenizer"].(string)
		switch tok {
		case "whitespace":
			return whitespaceAnalyzer{}, nil
		case "standard", "":
			return standardAnalyzer{stop: false}, nil
		case "keyword":
			return keywordAnalyzer{}, nil
		}
		return nil, fmt.Errorf("unknown tokenizer '%s'", tok)
	case "jieba":
		return customJieba(def)
	case "standard", "stop", "whitespace", "chinese", "keyword":
		return builtinAnalyzer(typ)
	}
	return builtinAnalyzer(typ)
}
