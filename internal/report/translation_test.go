package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestTranslationTable: each command beside its translation, from the
// intended start, with memory, answers and what was left out under it.
func TestTranslationTable(t *testing.T) {
	run := func(name string, p50, p99 float64) *result.Run {
		return &result.Run{Operations: []result.Operation{{Name: name, Ops: 10, Latency: result.Latency{P50: 1, P99: 2},
			CorrectedLatency: &result.Latency{P50: p50, P99: p99}}}}
	}
	original, translated := run("SETBIT", 100, 900), run("TR.SETBIT", 80, 700)
	original.Config.Target = &result.Target{Addr: "127.0.0.1:6379", Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}}
	translated.Config.Target = &result.Target{Addr: "127.0.0.1:6380", Server: &result.ServerIdentity{Name: "tairbench-embedded", Embedded: true}}
	d := &result.Translation{Translate: "bitmaps=tairroaring", Trace: "t.tbt",
		Pairs:    []result.TranslationPair{{Original: "SETBIT", Translated: "TR.SETBIT"}, {Original: "BITPOS", Translated: "TR.BITPOS"}},
		Original: original, Translated: translated,
		Memory:    result.TranslationMemory{Keys: 10, Sampled: 10, OriginalBytes: 3 << 20, TranslatedBytes: 70 << 10},
		Agreement: result.Agreement{Keys: 10, Commands: 5, Agreed: 4, Disagreements: []result.Disagreement{{Original: "BITPOS k 0", Translated: "TR.BITPOS k 0", OriginalReply: "0", TranslatedReply: "-1"}}},
		Unmapped:  []result.ReplayDrop{{What: "GET on a bitmap key", Count: 2}}}
	var b bytes.Buffer
	WriteTable(&b, TranslationTable(d))
	out := b.String()
	assert.Regexp(t, `SETBIT +10 +0\.100 +0\.900 +TR\.SETBIT +10 +0\.080 +0\.700`, out)
	assert.NotContains(t, out, "TR.BITPOS  ", "a command the trace does not have has no row")
	assert.Contains(t, out, "as it was on 127.0.0.1:6379: redis 7.0.15")
	assert.Contains(t, out, "translated on 127.0.0.1:6380: tairbench's embedded server, not Tair")
	assert.Contains(t, out, "3.00 MiB as Redis bitmaps, 70.0 KiB as TairRoaring")
	assert.Contains(t, out, "answers: 4 of 5 commands on 10 sampled keys answered alike")
	assert.Contains(t, out, "differs: BITPOS k 0 → 0; TR.BITPOS k 0 → -1")
	assert.Contains(t, out, "left out of both: 2 × GET on a bitmap key")
}
