package jieba

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// Sentences written for this test: technical prose, names, numbers,
// mixed scripts and punctuation.
var written = []string{
	"Redis是完全开源免费的，遵守BSD协议，是一个高性能的key-value数据库。",
	"云原生内存数据库Tair兼容Redis协议，并提供多种增强型数据结构。",
	"我们在一台两核的机器上测量了每秒查询次数和百分位延迟。",
	"持久内存型实例的写入延迟略高于内存型，但成本更低。",
	"全文搜索模块支持倒排索引、聚合查询和自动补全。",
	"北京时间上午十点，服务器的CPU使用率达到了95%。",
	"这个基准测试工具使用Go语言编写，支持流水线和事务批处理。",
	"请把结果保存为JSON文件，然后用浏览器打开报告。",
	"张三和李四在杭州的阿里巴巴园区讨论分布式缓存的设计。",
	"集群版实例通过代理节点把请求路由到各个数据分片。",
	"当客户端连接数超过一万时，内存占用需要控制在合理范围内。",
	"位图压缩算法把连续的整数区间存储为游程容器。",
	"Elasticsearch的分词器和TairSearch的分词器在停用词上有所不同。",
	"他说：“今天的测试结果比昨天快了3.5倍！”",
	"机器学习模型可以预测用户下一次访问的时间。",
	"中华人民共和国成立于1949年10月1日。",
	"南京市长江大桥是一座公路铁路两用桥。",
	"研究生命的起源是生物学最重要的课题之一。",
	"结婚的和尚未结婚的都应该来参加会议。",
	"小明硕士毕业于中国科学院计算所，后在日本京都大学深造。",
	"我来到北京清华大学，参观了图书馆和计算机系。",
	"工程师们正在调试一个偶发的网络超时问题，怀疑是交换机的缓冲区溢出。",
	"这款手机的电池续航时间长达两天，充电速度也很快。",
	"乒乓球拍卖完了。",
	"下雨天留客天留我不留",
	"吃葡萄不吐葡萄皮，不吃葡萄倒吐葡萄皮。",
	"  前后有空格\t和制表符\r\n以及换行  ",
	"C++和C#都是编程语言，node.js不是。",
	"版本号v2.5.3发布于2026年11月，修复了12个缺陷。",
	"郭靖和黄蓉骑着汗血宝马穿过了蒙古草原。",
}

var punct = []string{"，", "。", "！", "？", "、", "；", "：", "“", "”", "（", "）", "《", "》", " ", "\r\n", "\t", "…", "·", "—"}

// synthetic builds sentences from dictionary words, random ideographs (runs
// the dictionary does not know go to the HMM), ASCII words, numbers and
// punctuation.
func synthetic(t *testing.T, n int) []string {
	d, err := loadBase()
	require.NoError(t, err)
	words := make([]string, 0, len(d.freq))
	for w, f := range d.freq {
		if f > 0 {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 3 + r.IntN(12) {
			switch k := r.IntN(20); {
			case k < 9:
				b.WriteString(words[r.IntN(len(words))])
			case k < 14:
				for range 1 + r.IntN(4) {
					b.WriteRune(rune(0x4E00 + r.IntN(0x9FA5-0x4E00)))
				}
			case k < 16:
				for range 1 + r.IntN(6) {
					b.WriteByte("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789"[r.IntN(42)])
				}
			case k < 17:
				b.WriteString([]string{"3.14", "25%", "7.5%", "1,024", "0.001", "v2", "-1", "a_b", "x.y"}[r.IntN(9)])
			default:
				b.WriteString(punct[r.IntN(len(punct))])
			}
		}
		out[i] = b.String()
	}
	return out
}

// reference cuts the sentences with PyPI's jieba, given the same dictionary.
func reference(t *testing.T, sentences []string, hmm bool, userWords []string) [][]string {
	return referenceMode(t, sentences, hmm, false, userWords)
}

// referenceMode is reference in jieba's search mode when search is set.
func referenceMode(t *testing.T, sentences []string, hmm, search bool, userWords []string) [][]string {
	pyPath := testenv.PythonJieba(t)
	zr, err := gzip.NewReader(bytes.NewReader(dictGz))
	require.NoError(t, err)
	dict := filepath.Join(t.TempDir(), "dict.txt")
	f, err := os.Create(dict)
	require.NoError(t, err)
	_, err = io.Copy(f, zr)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	if userWords == nil {
		userWords = []string{}
	}
	req, err := json.Marshal(map[string]any{"dict": dict, "hmm": hmm, "search": search, "userwords": userWords, "sentences": sentences})
	require.NoError(t, err)
	cmd := exec.Command("python3", "testdata/reference.py")
	// TMPDIR: jieba caches the dictionary in the temporary folder; the
	// test's own, so that nothing is left in the system's.
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pyPath, "PYTHONIOENCODING=utf-8", "TMPDIR="+filepath.Dir(dict))
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var got [][]string
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got, len(sentences))
	return got
}

func TestSameWordsAsPyPIJieba(t *testing.T) {
	sentences := append(slices.Clone(written), synthetic(t, 400)...)
	userWords := []string{"key-value数据结构存储", "云原生内存数据库", "持久内存型实例", "游程容器", "偶发的网络超时", "汗血宝马", "葡萄皮"}
	for _, tc := range []struct {
		name      string
		hmm       bool
		userWords []string
	}{
		{"hmm", true, nil},
		{"no-hmm", false, nil},
		{"hmm+userwords", true, userWords},
		{"no-hmm+userwords", false, userWords},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := reference(t, sentences, tc.hmm, tc.userWords)
			s, err := New(tc.userWords)
			require.NoError(t, err)
			differ := 0
			for i, sent := range sentences {
				got := s.Words(sent, tc.hmm)
				if !assert.Equal(t, want[i], got, "sentence %d: %q", i, sent) {
					differ++
				}
				if differ > 5 {
					t.FailNow()
				}
			}
		})
	}
}

// Search mode (Tair's jieba analyzer cuts this way) yields what PyPI's
// jieba.cut_for_search yields, word for word and in order.
func TestSearchModeLikePyPIJieba(t *testing.T) {
	sentences := append(slices.Clone(written), synthetic(t, 200)...)
	userWords := []string{"key-value数据结构存储", "云原生内存数据库"}
	for _, words := range [][]string{nil, userWords} {
		want := referenceMode(t, sentences, true, true, words)
		s, err := New(words)
		require.NoError(t, err)
		for i, sent := range sentences {
			require.Equal(t, want[i], s.SearchWords(sent, true), "sentence %d: %q", i, sent)
		}
	}
	s, err := New(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"数据", "结构", "数据结构"}, s.SearchWords("数据结构", true))
	// The reference (tair-api.md 3.8) gives 性能, 高性能 for Tair; PyPI's
	// dictionary also holds 高性 (frequency 5), so jieba yields it first.
	assert.Equal(t, []string{"高性", "性能", "高性能"}, s.SearchWords("高性能", true))
}

func TestUserWordsAreCutWhole(t *testing.T) {
	plain, err := New(nil)
	require.NoError(t, err)
	with, err := New([]string{"key-value数据结构存储"})
	require.NoError(t, err)
	text := "Redis是一个key-value数据结构存储系统"
	assert.NotContains(t, plain.Words(text, true), "key-value数据结构存储")
	assert.Contains(t, with.Words(text, true), "key-value数据结构存储")
	// The base dictionary is shared and not changed by another segmenter's words.
	assert.NotContains(t, plain.Words(text, true), "key-value数据结构存储")
}

func TestOffsetsCoverTheText(t *testing.T) {
	s, err := New(nil)
	require.NoError(t, err)
	for _, text := range append(slices.Clone(written), "", "a", "。", "\r\n") {
		var b strings.Builder
		next := 0
		s.Cut(text, true, func(start, end int, w string) {
			assert.Equal(t, next, start, "words are contiguous")
			assert.Equal(t, utf8.RuneCountInString(w), end-start, "offsets are in characters")
			next = end
			b.WriteString(w)
		})
		assert.Equal(t, text, b.String())
		assert.Equal(t, utf8.RuneCountInString(text), next)
	}
}

func BenchmarkCut(b *testing.B) {
	s, err := New(nil)
	require.NoError(b, err)
	text := strings.Join(written, "")
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.Cut(text, true, func(int, int, string) {})
	}
}
