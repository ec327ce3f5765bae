package server

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAccounts(t *testing.T) {
	s, _ := start(t, Config{Users: map[string]string{"user": "secret"}})
	ctx := context.Background()
	anon := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Protocol: 2, MaxRetries: -1, PoolSize: 1})
	defer anon.Close()
	assert.ErrorContains(t, anon.Do(ctx, "tr.getbit", "k", 1).Err(), "NOAUTH", "an account makes logging in required")
	runSteps(t, anon, []step{
		{[]any{"auth", "user", "wrong"}, "WRONGPASS", true},
		{[]any{"auth", "default", "secret"}, "WRONGPASS", true},
		{[]any{"auth", "user:secret"}, "OK", false}, // Tair's single argument
		{[]any{"acl", "whoami"}, "user", false},
		{[]any{"auth", "user", "secret"}, "OK", false}, // the ACL form
		{[]any{"acl", "setuser", "bench", "on", ">pw2", "~*", "&*", "+@all"}, "OK", false},
		{[]any{"acl", "setuser", "bench", "on", ">pw2", "-@dangerous"}, "not supported", true},
		{[]any{"auth", "bench", "pw2"}, "OK", false},
		{[]any{"acl", "whoami"}, "bench", false},
	})
	resp3 := goredis.NewClient(&goredis.Options{Addr: s.Addr(), Username: "user", Password: "secret", Protocol: 3})
	defer resp3.Close()
	require.NoError(t, resp3.Set(ctx, "a", "b", 0).Err(), "HELLO 3 AUTH user secret")
	who, err := resp3.Do(ctx, "ACL", "WHOAMI").Text()
	require.NoError(t, err)
	assert.Equal(t, "user", who)
}
