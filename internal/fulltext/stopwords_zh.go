package fulltext

import "strings"

// chineseStopWords are the words the jieba analyzer drops, as Tair's does
// (tair-api.md 3.8). Tair does not publish its list; the reference shows
// 是, 的, 和, 可以, 用来 and 作为 dropped and 一个, 中, 化 and 再次 kept.
// This list is tairbench's own: those six and the common function words of
// Modern Chinese (particles, conjunctions, prepositions, pronouns, modal
// verbs and degree adverbs), none of the four kept words. docs/search.md
// prints it; the parity report names stop words as a cause when the two
// engines' tokens differ by them.
var chineseStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(chineseStopList) {
		m[w] = true
	}
	return m
}()

// chineseStopList is the list, one group per line.
const chineseStopList = `
的 地 得 之 了 着 过 吗 呢 吧 啊 呀 哦 嘛 么 啦 呗 罢了 而已 似的 等 等等
是 为 乃 即
和 与 及 以及 或 或者 而 而且 并 并且 且 但 但是 可是 然而 不过 因为 所以 因此
如果 假如 若 虽然 虽 即使 尽管 于是 然后 从而 以便 以免 否则 还是 要么 不但 而是 只是 就是
在 于 对 对于 关于 从 自 自从 向 往 把 被 将 由 以 按 按照 根据 依照 为了 通过 经过 除了 至 到 跟 同 给 比
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 这 那 这个 那个 这些 那些 这样 那样 这里 那里
其 其中 其他 其它 自己 什么 哪 哪些 谁 某 每 各
可以 能 能够 会 要 可 也 都 就 还 又 很 更 最 已 已经 才 再 只 仅 均
用来 用于 作为 使 使得 让
`

// ChineseStopWords returns the jieba analyzer's stop words, in list order.
func ChineseStopWords() []string { return strings.Fields(chineseStopList) }

// IsStopWord says whether w is one of the stop words an analyzer here
// drops: the jieba analyzer's Chinese ones or the standard analyzer's
// English ones.
func IsStopWord(w string) bool { return chineseStopWords[w] || stopWords[w] }
