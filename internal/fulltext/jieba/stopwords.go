package jieba

import (
	_ "embed"
	"strings"
	"sync"
)

// stopWordsFile is cppjieba's dict/stop_words.utf8 (NOTICE.md).
//
//go:embed stop_words.utf8
var stopWordsFile string

var stopWords = sync.OnceValue(func() []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(stopWordsFile, "\n") {
		w := strings.ToLower(strings.TrimSpace(line))
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
})

// StopWords returns cppjieba's stop words (its dict/stop_words.utf8: Chinese
// function words, punctuation, English function words), lower-cased, each
// once, in the file's order.
func StopWords() []string { return append([]string(nil), stopWords()...) }
