// Package fulltext is the full-text engine behind the embedded server's
// TairSearch (TFT.*) module: mappings, analyzers, an inverted index over
// roaring bitmaps with doc values, the ES-like query DSL, aggregations and
// TairSearch's response JSON.
package fulltext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"
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
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		stopWords[w] = true
	}
}

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
	case "jieba", "ik_smart", "ik_max_word":
		return nil, fmt.Errorf("analyzer '%s' needs a Chinese dictionary the embedded server does not ship", name)
	}
	return nil, fmt.Errorf("unknown analyzer '%s'", name)
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
	case "standard", "stop", "whitespace", "chinese", "keyword":
		return builtinAnalyzer(typ)
	}
	return builtinAnalyzer(typ)
}
