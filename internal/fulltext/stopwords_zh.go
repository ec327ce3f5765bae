package fulltext

import "github.com/tairbench/tairbench/internal/fulltext/jieba"

// chineseStopWords are the words the jieba analyzer drops, as Tair's
// does (tair-api.md 3.8): cppjieba's stop-word list (jieba.StopWords).
// The reference shows 是, 的, 和, 可以, 用来 and 作为 dropped and 一个, 中,
// 化 and 再次 kept; Tair's published output on its reference paragraph
// also drops 有 and 时候. The list holds every word shown dropped and none
// shown kept. docs/search.md says where it comes from; the parity report
// names stop words as a cause when the two engines' tokens differ by them.
var chineseStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range jieba.StopWords() {
		m[w] = true
	}
	return m
}()

// ChineseStopWords returns the jieba analyzer's stop words, in list order.
func ChineseStopWords() []string { return jieba.StopWords() }

// IsStopWord says whether w is one of the stop words an analyzer here
// drops: the jieba analyzer's Chinese ones or the standard analyzer's
// English ones.
func IsStopWord(w string) bool { return chineseStopWords[w] || stopWords[w] }
