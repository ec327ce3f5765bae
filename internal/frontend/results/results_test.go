package results

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// golden is a result document pkg/result keeps as a command wrote it.
func golden(t *testing.T, name string) string {
	return testenv.RepoPath(t, filepath.Join("pkg", "result", "testdata", name))
}

func TestCompareRuns(t *testing.T) {
	io, out, _ := harness.Captured("test")
	run := golden(t, "run.json")
	require.NoError(t, Compare(CompareOptions{A: run, B: run, FailOn: []string{"p99>+10%"}}, io))
	assert.Contains(t, out.String(), "p99")
	assert.Contains(t, out.String(), "PASS", "a run against itself passes its gate")

	io, _, _ = harness.Captured("test")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, Compare(CompareOptions{A: run, B: run, FailOn: []string{"qps<-5%"}, JUnit: junit}, io))
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<testsuite")

	io, _, _ = harness.Captured("test")
	err = Compare(CompareOptions{A: run, B: run, FailOn: []string{"p99 is big"}}, io)
	assert.Error(t, err, "a gate that does not parse is refused")
}

func TestCompareOtherDocuments(t *testing.T) {
	io, out, _ := harness.Captured("test")
	bm := golden(t, "bitmap.json")
	require.NoError(t, Compare(CompareOptions{A: bm, B: bm}, io))
	assert.NotEmpty(t, out.String())
	err := Compare(CompareOptions{A: bm, B: bm, FailOn: []string{"p99>+10%"}}, io)
	assert.ErrorContains(t, err, "--fail-on judges two runs")

	io, out, _ = harness.Captured("test")
	tr := golden(t, "track.json")
	require.NoError(t, Compare(CompareOptions{A: tr, B: tr}, io))
	assert.Contains(t, out.String(), "task ")

	io, _, _ = harness.Captured("test")
	err = Compare(CompareOptions{A: golden(t, "roaring.json"), B: golden(t, "roaring.json")}, io)
	assert.ErrorContains(t, err, "not one run")
}

func TestReadRunPicksATrackTask(t *testing.T) {
	tr := golden(t, "track.json")
	_, err := ReadRun(tr)
	assert.ErrorContains(t, err, "name one as")
	_, err = ReadRun(tr + "#nothing/tairsearch")
	assert.ErrorContains(t, err, "no run")
	c, err := ReadRun(golden(t, "compat.json"))
	require.NoError(t, err, "a compat document of one test is one run")
	assert.Positive(t, c.Totals.Ops)
}

func TestMergeAndGate(t *testing.T) {
	dir := t.TempDir()
	run := golden(t, "run.json")
	raw, err := os.ReadFile(run)
	require.NoError(t, err)
	// A second client of the same load: its own seeds, the same seconds.
	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, regexp.MustCompile(`"base": \d+`).ReplaceAll(raw, []byte(`"base": 7`)), 0o644))

	io, _, _ := harness.Captured("test")
	err = Merge(context.Background(), MergeOptions{Paths: []string{run, run}, Out: filepath.Join(dir, "x.json")}, io)
	assert.ErrorContains(t, err, "result 2 is result 1 again")

	io, out, _ := harness.Captured("test")
	total := filepath.Join(dir, "total.json")
	require.NoError(t, Merge(context.Background(), MergeOptions{Paths: []string{run, other}, Out: total, Gate: output.Gate{Thresholds: []string{"errors<1%"}}}, io))
	assert.Contains(t, out.String(), "PASS")
	doc, err := result.ReadFile(total)
	require.NoError(t, err)
	one, err := result.ReadFile(run)
	require.NoError(t, err)
	assert.Equal(t, 2*one.(*result.Run).Totals.Ops, doc.(*result.Run).Totals.Ops, "two clients' commands add up")

	io, _, _ = harness.Captured("test")
	err = Merge(context.Background(), MergeOptions{Paths: []string{run, other}, Out: total, Gate: output.Gate{Thresholds: []string{"qps>1000000000"}}}, io)
	assert.ErrorContains(t, err, "threshold failed")
}

func TestReport(t *testing.T) {
	io, _, errb := harness.Captured("test")
	out := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, Report(context.Background(), ReportOptions{Paths: []string{golden(t, "run.json"), golden(t, "roaring.json")}, Out: out}, io))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<html")
	assert.Contains(t, errb.String(), "report written to "+out)
	io, _, _ = harness.Captured("test")
	assert.ErrorContains(t, Report(context.Background(), ReportOptions{Paths: []string{golden(t, "run.json")}}, io), "give the output file with -o")
}

// Relevance gates judge two track results (or two search comparisons):
// B's change against A per template and engine, in points of a share.
func TestCompareRelevanceGates(t *testing.T) {
	dir := t.TempDir()
	track := func(name string, ndcg float64) string {
		doc, err := result.ReadFile(golden(t, "track.json"))
		require.NoError(t, err)
		tr := doc.(*result.TrackRun)
		tr.Relevance = &result.TrackRelevance{Labels: "known items: 100 documents", K: 10, Templates: map[string]string{"query": "{}"},
			Engines: []result.RelevanceScores{{Template: "query", Engine: "tairsearch", Judged: 100, Recall: 0.9, MRR: 0.8, NDCG: ndcg}}}
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, result.EncodeJSON(f, tr))
		require.NoError(t, f.Close())
		return path
	}
	a, same, worse := track("a.json", 0.80), track("same.json", 0.79), track("worse.json", 0.70)

	io, out, _ := harness.Captured("test")
	require.NoError(t, Compare(CompareOptions{A: a, B: same, FailOn: []string{"ndcg@10<-0.05"}}, io))
	assert.Contains(t, out.String(), "relevance, B against A")
	assert.Regexp(t, `threshold ndcg@10<-0\.05 +PASS: observed -0\.010`, out.String())

	io, out, _ = harness.Captured("test")
	err := Compare(CompareOptions{A: a, B: worse, FailOn: []string{"tairsearch:ndcg@10<-0.05"}}, io)
	var ee *harness.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, harness.ExitThreshold, ee.Code, "a failed gate exits 99")
	assert.Contains(t, out.String(), "query on tairsearch: A 0.800, B 0.700")

	for _, tc := range []struct{ gate, want string }{
		{"p99>+10%", "--fail-on p99>+10% judges two runs: name one task's run of each track as FILE#TASK/ENGINE"},
		{"ndcg@10<5", `--fail-on "ndcg@10<5": want [ENGINE:]METRIC@K<-N or >+N`},
		{"mrr@5<-0.1", "mrr is measured at 10"},
	} {
		io, _, _ = harness.Captured("test")
		assert.ErrorContains(t, Compare(CompareOptions{A: a, B: worse, FailOn: []string{tc.gate}}, io), tc.want)
	}
	run := golden(t, "run.json")
	io, _, _ = harness.Captured("test")
	assert.ErrorContains(t, Compare(CompareOptions{A: run, B: run, FailOn: []string{"ndcg@10<-0.05"}}, io),
		"--fail-on ndcg@10<-0.05 judges relevance: give two track results or two search comparisons")
}

// TestCompareEvents: two runs through the same event have their scores
// paired, and their write ledgers set side by side.
func TestCompareEvents(t *testing.T) {
	doc, err := result.ReadFile(golden(t, "run.json"))
	require.NoError(t, err)
	a := doc.(*result.Run)
	b := *a
	at := 2.0
	score := func(ms float64) *result.EventScore { return &result.EventScore{NoReplyMS: ms, RecoveredS: &at} }
	a.Events = &result.Events{Schema: result.SchemaEvents, SLO: "x", Events: []result.Event{{Action: "failover", Text: "failover", Score: score(120)}}}
	b.Events = &result.Events{Schema: result.SchemaEvents, SLO: "x", Events: []result.Event{{Action: "failover", Text: "failover", Score: score(80)},
		{Action: "bgsave", Text: "bgsave"}}}
	b.Ledger = &result.Ledger{Schema: result.SchemaLedger, Sent: 10, Acknowledged: 9, LostAcknowledged: 1}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for p, r := range map[string]*result.Run{pa: a, pb: &b} {
		f, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, result.EncodeJSON(f, r))
		require.NoError(t, f.Close())
	}
	io, out, _ := harness.Captured("test")
	require.NoError(t, Compare(CompareOptions{A: pa, B: pb}, io))
	assert.Regexp(t, regexp.MustCompile(`failover\s+120 / 80\s+2 s / 2 s`), out.String())
	assert.Regexp(t, regexp.MustCompile(`bgsave\s+only in B`), out.String())
	assert.Regexp(t, regexp.MustCompile(`acknowledged writes lost\s+—\s+1`), out.String())
}
