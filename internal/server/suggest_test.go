package server

import (
	"testing"
)

// TestSuggestionsOnAFreshKey follows Tair's documented example: TFT.ADDSUG
// on a key that does not exist creates it; the other suggestion commands
// answer a missing key as an empty suggestion set.
func TestSuggestionsOnAFreshKey(t *testing.T) {
	_, c := start(t, Config{})
	runSteps(t, c, []step{
		{[]any{"tft.sugnum", "nokey"}, int64(0), false},
		{[]any{"tft.getsug", "nokey", "re"}, []any{}, false},
		{[]any{"tft.getallsugs", "nokey"}, []any{}, false},
		{[]any{"tft.delsug", "nokey", "x"}, int64(0), false},
		{[]any{"tft.addsug", "sugkey", "redis is a memory database", "3", "redis cluster", "10", "redis lock", "4"}, int64(3), false},
		{[]any{"tft.sugnum", "sugkey"}, int64(3), false},
		{[]any{"tft.getsug", "sugkey", "res", "MAX_COUNT", "2", "FUZZY"}, []any{"redis cluster", "redis lock"}, false},
		{[]any{"type", "sugkey"}, "tairsearch", false},
		{[]any{"set", "str", "v"}, "OK", false},
		{[]any{"tft.addsug", "str", "x", "1"}, "WRONGTYPE", true},
		{[]any{"tft.getsug", "str", "x"}, "WRONGTYPE", true},
	})
}
