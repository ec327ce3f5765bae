package roaring

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

func TestStatOptionsValidate(t *testing.T) {
	ok := StatOptions{Universe: 1 << 32, Steps: 4, RunLength: 100}
	tests := []struct {
		name    string
		edit    func(o *StatOptions)
		wantErr string
	}{
		{"the whole space", func(*StatOptions) {}, ""},
		{"no universe", func(o *StatOptions) { o.Universe = 0 }, "--stat-universe must be in 1"},
		{"past 2^32", func(o *StatOptions) { o.Universe = 1<<32 + 1 }, "--stat-universe must be in 1"},
		{"no steps", func(o *StatOptions) { o.Steps = 0 }, "--stat-steps must be at least 1"},
		{"runs as long as the universe", func(o *StatOptions) { o.Universe, o.RunLength = 100, 100 }, "--stat-run-length must be below --stat-universe"},
	}
	for _, tc := range tests {
		o := ok
		tc.edit(&o)
		err := o.Validate()
		if tc.wantErr == "" {
			assert.NoError(t, err, tc.name)
			continue
		}
		assert.ErrorContains(t, err, tc.wantErr, tc.name)
	}
}

// TestSelectForTarget: a cluster target runs the cluster cases alone, a
// standalone one every other case.
func TestSelectForTarget(t *testing.T) {
	all := Cases()
	cluster, standalone := selectForTarget(all, true), selectForTarget(all, false)
	assert.NotEmpty(t, cluster)
	assert.NotEmpty(t, standalone)
	assert.Equal(t, len(all), len(cluster)+len(standalone))
	for _, c := range cluster {
		assert.Equal(t, GroupCluster, c.Group, c.ID)
	}
	for _, c := range standalone {
		assert.NotEqual(t, GroupCluster, c.Group, c.ID)
	}
}

// TestCaseSeed: each case's seed is its own, the same under the same base.
func TestCaseSeed(t *testing.T) {
	assert.Equal(t, CaseSeed(7, "setbit-p1-b1"), CaseSeed(7, "setbit-p1-b1"))
	assert.NotEqual(t, CaseSeed(7, "setbit-p1-b1"), CaseSeed(7, "getbit-p1-b1"))
	assert.NotEqual(t, CaseSeed(7, "setbit-p1-b1"), CaseSeed(8, "setbit-p1-b1"))
}

// TestCaseWarnings: a run's own warnings keep its case's name; the
// machine-bound ones of the in-process server are said once for all.
func TestCaseWarnings(t *testing.T) {
	bound := result.Client{Saturated: true, InProcessServer: true}
	cases := []CaseResult{
		{Case: Case{ID: "a"}, Run: &result.Run{Warnings: []string{"client and server compete for CPU"}, Client: bound}},
		{Case: Case{ID: "b"}, Run: &result.Run{Warnings: []string{"client and server compete for CPU"}, Client: bound}},
		{Case: Case{ID: "c"}, Run: &result.Run{Warnings: []string{"2 commands failed"}}},
	}
	got := caseWarnings(cases)
	assert.Len(t, got, 2)
	assert.Equal(t, "c: 2 commands failed", got[0])
	assert.Contains(t, got[1], "in 2 cases this process")
	assert.Contains(t, got[1], "a, b")
	assert.Equal(t, "bits/s", rateUnit(Case{Group: GroupBatch}))
	assert.Equal(t, "QPS", rateUnit(Case{Group: GroupCluster}))
}
