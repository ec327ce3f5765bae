package internal_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/tairbench/tairbench/"

// TestLayering keeps the imports running one way: each row names packages
// (a path, or a prefix ending in "/...") and what they must not depend on,
// directly or not.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "../...").CombinedOutput()
	require.NoError(t, err, string(out))
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], module)] = f[1:]
	}
	rules := []struct {
		pkgs   string
		banned []string
		why    string
	}{
		{"internal/engine", []string{"internal/driver", "internal/cli", "internal/report", "internal/server", "internal/runner",
			"go-redis", "cobra", "go-elasticsearch"}, "the engine knows no protocol, CLI or rendering"},
		{"internal/stats", []string{"internal/engine", "internal/driver", "internal/cli", "internal/report"}, "statistics sit below the engine"},
		{"pkg/...", []string{module + "internal/"}, "public packages stand alone"},
		{"internal/server", []string{"internal/driver", "internal/engine", "internal/runner", "internal/cli", "internal/workload",
			"internal/searchbench"}, "the server knows nothing of the load generator"},
		{"internal/report", []string{"internal/engine", "internal/driver", "internal/cli"}, "rendering works from results alone"},
		{"internal/workload/...", []string{"internal/cli", "cobra"}, "workloads are usable without the CLI"},
		{"internal/capacity", []string{"internal/cli", "internal/driver", "cobra"}, "the capacity search runs any front-end's steps"},
		{"internal/searchbench", []string{"internal/cli", "cobra"}, "search drivers are usable without the CLI"},
		{"internal/driver/...", []string{"internal/cli", "internal/workload", "cobra"}, "drivers serve every front-end"},
		{"internal/target", []string{"internal/driver", "internal/engine", "internal/cli", "go-redis"}, "the target is plain data"},
		{"internal/fulltext/...", []string{"internal/server", "internal/engine", "internal/cli"}, "the index is a library"},
		{"internal/compat/...", []string{"internal/cli", "cobra", "internal/server"}, "peer tools' front-ends are usable without the CLI"},
	}
	for _, r := range rules {
		t.Run(r.pkgs, func(t *testing.T) {
			matched := 0
			for pkg, ds := range deps {
				if prefix, ok := strings.CutSuffix(r.pkgs, "/..."); ok {
					if pkg != prefix && !strings.HasPrefix(pkg, prefix+"/") {
						continue
					}
				} else if pkg != r.pkgs {
					continue
				}
				matched++
				for _, d := range ds {
					for _, b := range r.banned {
						require.NotContains(t, d, b, "%s must not depend on %s (%s)", pkg, d, r.why)
					}
				}
			}
			require.Positive(t, matched, "no package matches %s", r.pkgs)
		})
	}
}
