package internal_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
		{"internal/...", []string{module + "internal/cli"}, "nothing imports the command line"},
		{"internal/engine", []string{"internal/driver", "internal/cli", "internal/report", "internal/server", "internal/run",
			"internal/frontend", "pkg/resp", "go-redis", "cobra", "go-elasticsearch", "fasthttp"},
			"the engine knows no protocol, CLI or rendering"},
		{"internal/stats", []string{"internal/engine", "internal/driver", "internal/cli", "internal/report"}, "statistics sit below the engine"},
		{"pkg/...", []string{module + "internal/"}, "public packages stand alone"},
		{"internal/server", []string{"internal/driver", "internal/engine", "internal/run", "internal/cli", "internal/frontend"},
			"the server knows nothing of the load generator"},
		{"internal/report", []string{"internal/engine", "internal/driver", "internal/cli", "internal/run", "internal/frontend"},
			"rendering works from results alone"},
		{"internal/frontend/...", []string{"internal/cli", "cobra"}, "front-ends are usable without the command line"},
		{"internal/run/...", []string{"internal/frontend", "internal/cli", "internal/driver", "cobra", "pflag"},
			"the run layer serves every front-end and knows no driver: front-ends hand it a factory"},
		{"internal/driver/...", []string{"internal/run", "internal/frontend", "internal/cli", "cobra", "pflag"},
			"drivers sit below the run layer and serve every front-end"},
		{"internal/serverstat", []string{module + "internal/"}, "server readings are plain data below drivers and the run layer"},
		{"internal/pollset", []string{module + "internal/", module + "pkg/"}, "the readiness set is a system primitive below the engine and the drivers"},
		{"internal/endpoint", []string{"internal/driver", "internal/engine", "internal/cli", "go-redis"}, "the endpoint is plain data"},
		{"internal/fulltext/...", []string{"internal/server", "internal/engine", "internal/cli"}, "the index is a library"},
		{"internal/commands", []string{module + "internal/", module + "pkg/"}, "the command catalog is plain data for the server and the client alike"},
		{"internal/events", []string{"internal/driver", "internal/engine", "internal/run", "internal/frontend", "internal/cli", "pkg/resp", "go-redis"},
			"events know no protocol: a driver's Actor carries them out, the run layer starts them"},
		{"internal/ledger", []string{"internal/driver", "internal/engine", "internal/run", "internal/frontend", "internal/cli", "go-redis"},
			"the ledger is bookkeeping: a driver runs its Source, a front-end reads the counters back"},
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
						require.False(t, bans(b, d), "%s must not depend on %s (%s)", pkg, d, r.why)
					}
				}
			}
			require.Positive(t, matched, "no package matches %s", r.pkgs)
		})
	}
}

// TestCLIOnlyMapsFlags: the command line imports, of this module, only
// the front-ends, flag value parsers and the result schema; everything
// else (targets, drivers, servers, outputs) is reached through a
// front-end. Direct imports are checked: the front-ends bring the rest.
func TestCLIOnlyMapsFlags(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "../internal/cli").CombinedOutput()
	require.NoError(t, err, string(out))
	allowed := []string{"internal/frontend/", "internal/flagval", "pkg/result"}
	for _, imp := range strings.Fields(string(out)) {
		own, ok := strings.CutPrefix(imp, module)
		if !ok {
			if strings.Contains(imp, ".") { // an outside module: cobra and pflag only
				require.True(t, strings.HasPrefix(imp, "github.com/spf13/cobra") || strings.HasPrefix(imp, "github.com/spf13/pflag"),
					"internal/cli imports %s: the command line uses cobra and pflag only", imp)
			}
			continue
		}
		ok = false
		for _, a := range allowed {
			ok = ok || own == a || strings.HasPrefix(own, a)
		}
		require.True(t, ok, "internal/cli imports %s: reach it through a front-end (internal/frontend/...)", own)
	}
}

// TestEngineAndDriversSpeakTheirOwnTypes: the engine's stop reasons,
// seeds and availability, a driver's server identity, cluster routing,
// hits and memory are their own; the run layer and the front-ends convert
// them into the result schema, which neither imports.
func TestEngineAndDriversSpeakTheirOwnTypes(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../internal/engine", "../internal/driver/...").CombinedOutput()
	require.NoError(t, err, string(out))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Greater(t, len(lines), 5, "the engine and every driver listed")
	for _, line := range lines {
		f := strings.Fields(line)
		assert.NotContains(t, f[1:], module+"pkg/result", "%s imports pkg/result", f[0])
	}
}

// bans says whether the banned name b covers the dependency d: this
// module's package b and the packages below it (b is a path such as
// "internal/run" or a module prefix ending in "/"), or any package whose
// path contains b (an outside module: "cobra", "go-redis").
func bans(b, d string) bool {
	own := strings.TrimPrefix(b, module)
	if strings.HasPrefix(own, "internal/") || strings.HasPrefix(own, "pkg/") {
		if strings.HasSuffix(own, "/") {
			return strings.HasPrefix(d, module+own)
		}
		return d == module+own || strings.HasPrefix(d, module+own+"/")
	}
	return strings.Contains(d, b)
}

// TestLibFloorLinksTairbenchsLibraries keeps tools/libfloor, the memory
// floor make bench-client prints, honest: every library it links is one
// tairbench links, so that it weighs no more than part of tairbench.
func TestLibFloorLinksTairbenchsLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "../tools/libfloor").CombinedOutput()
	require.NoError(t, err, string(out))
	floor := strings.Fields(string(out))
	out, err = exec.Command("go", "list", "-deps", "../cmd/tairbench").CombinedOutput()
	require.NoError(t, err, string(out))
	linked := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		linked[p] = true
	}
	libs := 0
	for _, p := range floor {
		if strings.Contains(p, ".") {
			libs++
		}
		require.True(t, linked[p], "tools/libfloor imports %s, which tairbench does not link", p)
	}
	require.GreaterOrEqual(t, libs, 7, "tools/libfloor links the libraries tairbench is built on")
}

// TestLinkerDropsUnusedMethods keeps the linker's dead-code elimination
// whole. If a function that looks methods up by a name known only at run
// time is reachable from main (text/template evaluating a field, or
// reflect.Value.Methods, which protobuf before 1.36.12 kept reachable by
// calling MethodByName("Methods")), the linker keeps every exported method
// of every type converted to an interface: make build's binary was 45.8 MB
// with one and 26.3 MB without (commit 4d87188's message).
func TestLinkerDropsUnusedMethods(t *testing.T) {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "tairbench"), "../cmd/tairbench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%.2000s", out)
	found := ""
	reachedBy := map[string]string{} // a symbol -> the first symbol the linker reached it from
	for _, line := range strings.Split(string(out), "\n") {
		from, to, ok := strings.Cut(line, " -> ")
		if !ok {
			continue
		}
		from, _, _ = strings.Cut(from, " <")
		to, attr, _ := strings.Cut(to, " <")
		if _, seen := reachedBy[to]; !seen {
			reachedBy[to] = from
		}
		if found == "" && strings.HasPrefix(attr, "ReflectMethod") {
			found = to
		}
	}
	require.NotEmpty(t, reachedBy, "no reachability edges in the linker's -dumpdep output")
	if found != "" {
		chain := []string{found}
		for s, n := found, 0; n < 30; n++ {
			if s = reachedBy[s]; s == "" || s == "_" {
				break
			}
			chain = append(chain, s)
		}
		t.Fatalf("%s looks methods up by name and is reachable, so the linker keeps every exported method:\n  %s\n"+
			"(a method reached as a type's method may be kept by a constant-name lookup elsewhere: "+
			"go build -ldflags=-v=2 ./cmd/tairbench 2>&1 | grep 'generic iface method' lists those names)",
			found, strings.Join(chain, "\n  <- "))
	}
}
