package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/commands"
)

// TestCommandsAgreeWithTheCatalog: every command the embedded server and
// tairbench's command catalog both know writes in both or in neither, and
// sits in the catalog's module for the Tair modules.
func TestCommandsAgreeWithTheCatalog(t *testing.T) {
	both := 0
	for _, mod := range modules {
		m := mod()
		for _, c := range m.Commands {
			info, ok := commands.Lookup(c.Name)
			if !ok {
				continue
			}
			both++
			if info.NoKey {
				continue
			}
			assert.Equal(t, info.Write, c.Flags&FlagWrite != 0, "%s: the catalog and the server disagree on whether it writes", c.Name)
			if strings.HasPrefix(info.Module, "Tair") {
				assert.Equal(t, strings.ToLower(info.Module), m.Name, "%s's module", c.Name)
			}
		}
	}
	assert.Greater(t, both, 20, "the server and the catalog share most commands")
}
