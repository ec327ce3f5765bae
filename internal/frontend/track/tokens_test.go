package track

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

func TestSameTokens(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"性能", "高性能"}, []string{"高性能", "性能"}, true}, // Elasticsearch's offset order
		{[]string{"数据", "数据"}, []string{"数据"}, false},        // each as many times
		{[]string{"吉林", "吉林省"}, []string{"吉林省"}, false},
		{nil, nil, true},
	} {
		assert.Equal(t, c.want, sameTokens(c.a, c.b), "%v %v", c.a, c.b)
	}
}

func TestTopDiff(t *testing.T) {
	diff := map[string]int{"吉林": 3, "ａ": 1, "abc": -1, "数据": 0, "b": 1}
	assert.Equal(t, []result.TokenCount{{Token: "吉林", Count: 3}, {Token: "b", Count: 1}, {Token: "ａ", Count: 1}}, topDiff(diff, 1))
	assert.Equal(t, []result.TokenCount{{Token: "abc", Count: 1}}, topDiff(diff, -1))
	many := map[string]int{}
	for _, s := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		many[s] = 1
	}
	assert.Len(t, topDiff(many, 1), topTokens)
}

func TestLookup(t *testing.T) {
	doc := map[string]any{"title": "x", "meta": map[string]any{"desc": "y"}, "a.b": "z"}
	assert.Equal(t, "x", lookup(doc, "title"))
	assert.Equal(t, "y", lookup(doc, "meta.desc"))
	assert.Equal(t, "z", lookup(doc, "a.b"))
	assert.Nil(t, lookup(doc, "meta.none"))
	assert.Nil(t, lookup(doc, "none.desc"))
}
