package track

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOverlapShare(t *testing.T) {
	for _, c := range []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 1},
		{[]string{"1", "2"}, []string{"2", "1"}, 1},
		{[]string{"1", "2", "3", "4"}, []string{"1", "5"}, 0.25},
		{[]string{"1"}, nil, 0},
	} {
		assert.Equal(t, c.want, overlapShare(c.a, c.b), "%v %v", c.a, c.b)
	}
}

func TestOnlyStopWords(t *testing.T) {
	assert.True(t, onlyStopWords([]string{"数据", "的", "缓存"}, []string{"数据", "缓存"}))
	assert.True(t, onlyStopWords([]string{"the", "cache"}, []string{"cache"}))
	assert.False(t, onlyStopWords([]string{"资本家"}, []string{"资本", "本家", "资本家"}))
}

func TestFieldText(t *testing.T) {
	assert.Equal(t, "数据", fieldText([]byte(`{"query":{"bool":{"must":[{"match":{"title":"数据"}}]}}}`), "title"))
	assert.Equal(t, "a b", fieldText([]byte(`{"query":{"match":{"title":{"query":"a b","operator":"and"}}}}`), "title"))
	assert.Equal(t, "", fieldText([]byte(`{"query":{"range":{"price":{"gte":1}}}}`), "title"))
}
