package tairvector

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/driver/vectors"
)

func TestAppendVectorBulk(t *testing.T) {
	got := appendVectorBulk([]byte("x"), []float32{0.12, 1, -3e-07})
	assert.Equal(t, "x$15\r\n[0.12,1,-3e-07]\r\n", string(got))
	buf := make([]byte, 0, 256)
	assert.Zero(t, testing.AllocsPerRun(100, func() { buf = appendVectorBulk(buf[:0], []float32{1.5, 2, 3}) }))
}

func TestEncodeSearch(t *testing.T) {
	e := &tairVector{index: "ix"}
	assert.Equal(t, "*4\r\n$13\r\nTVS.KNNSEARCH\r\n$2\r\nix\r\n$2\r\n10\r\n$7\r\n[1,2.5]\r\n",
		string(e.EncodeSearch(nil, []float32{1, 2.5}, 10, 0, vectors.Filter{})))
	assert.Equal(t, "*6\r\n$13\r\nTVS.KNNSEARCH\r\n$2\r\nix\r\n$1\r\n5\r\n$5\r\n[1,2]\r\n$9\r\nef_search\r\n$2\r\n40\r\n",
		string(e.EncodeSearch(nil, []float32{1, 2}, 5, 40, vectors.Filter{})))
	// The filter is the positional argument after the vector.
	assert.Equal(t, "*7\r\n$13\r\nTVS.KNNSEARCH\r\n$2\r\nix\r\n$1\r\n5\r\n$5\r\n[1,2]\r\n$9\r\nattr<1000\r\n$9\r\nef_search\r\n$2\r\n40\r\n",
		string(e.EncodeSearch(nil, []float32{1, 2}, 5, 40, vectors.Filter{Field: "attr", Below: 1000})))
	assert.Equal(t, "*5\r\n$13\r\nTVS.KNNSEARCH\r\n$2\r\nix\r\n$1\r\n5\r\n$5\r\n[1,2]\r\n$6\r\nattr<7\r\n",
		string(e.EncodeSearch(nil, []float32{1, 2}, 5, 0, vectors.Filter{Field: "attr", Below: 7})))
}

func TestEncodeInsert(t *testing.T) {
	e := &tairVector{index: "ix"}
	assert.Equal(t, "*5\r\n$8\r\nTVS.HSET\r\n$2\r\nix\r\n$1\r\n3\r\n$6\r\nVECTOR\r\n$5\r\n[1,2]\r\n",
		string(e.EncodeInsert(nil, 3, []float32{1, 2}, 2, "", nil)))
	assert.Equal(t, "*7\r\n$8\r\nTVS.HSET\r\n$2\r\nix\r\n$1\r\n3\r\n$6\r\nVECTOR\r\n$5\r\n[1,2]\r\n$4\r\nattr\r\n$2\r\n42\r\n"+
		"*7\r\n$8\r\nTVS.HSET\r\n$2\r\nix\r\n$1\r\n4\r\n$6\r\nVECTOR\r\n$5\r\n[3,4]\r\n$4\r\nattr\r\n$1\r\n0\r\n",
		string(e.EncodeInsert(nil, 3, []float32{1, 2, 3, 4}, 2, "attr", []int32{42, 0})))
}
