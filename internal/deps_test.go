package internal_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEngineDependencies keeps the engine protocol-agnostic: it must not
// import a client library, the CLI framework or a driver.
func TestEngineDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tairbench/tairbench/internal/engine").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"go-redis", "cobra", "go-elasticsearch", "/internal/driver", "/internal/cli"} {
			require.NotContains(t, dep, banned, "internal/engine must not depend on %s", dep)
		}
	}
}
