package redis

import (
	"context"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// EmbeddedServerName is the server_name tairbench's embedded server gives
// in INFO server.
const EmbeddedServerName = "tairbench-embedded"

// Identity is who a target said it is.
type Identity struct {
	// Name is INFO's server_name (EmbeddedServerName for tairbench's
	// embedded server), or "redis" when it gives none; Version its
	// redis_version.
	Name, Version string
	Modules       []Module
	// Embedded is set for tairbench's embedded server: not Tair.
	Embedded bool
}

// Module is one module a target listed.
type Module struct{ Name, Version string }

// Identify asks the target who it is (INFO server and INFO modules), for
// results that name what they measured. A target that refuses INFO (a
// proxy may) is reported with what it did say.
func Identify(ctx context.Context, t endpoint.Target) (*Identity, error) {
	t.Timeout = min(t.RequestTimeout(), 3*time.Second)
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	c, err := transport.Dial(ctx, t)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	info, err := c.DoString("INFO", "server")
	if err != nil {
		return nil, err
	}
	id := ParseIdentity(info)
	if mods, err := c.DoString("INFO", "modules"); err == nil {
		id.Modules = parseModules(mods)
	}
	id.Embedded = id.Name == EmbeddedServerName
	return id, nil
}

// ParseIdentity reads server_name (Tair's and tairbench's own; "redis"
// when absent) and redis_version from INFO server.
func ParseIdentity(info string) *Identity {
	id := &Identity{Name: "redis"}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "server_name":
			id.Name = v
		case "redis_version":
			id.Version = v
		}
	}
	return id
}

// parseModules reads INFO modules' "module:name=X,ver=N,…" lines.
func parseModules(info string) []Module {
	var out []Module
	for _, line := range strings.Split(info, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "module:")
		if !ok {
			continue
		}
		var m Module
		for _, kv := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(kv, "=")
			switch k {
			case "name":
				m.Name = val
			case "ver":
				m.Version = val
			}
		}
		if m.Name != "" {
			out = append(out, m)
		}
	}
	return out
}
