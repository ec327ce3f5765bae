package target

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLoginAndRedaction(t *testing.T) {
	tests := []struct {
		name       string
		t          Target
		login      Login
		serverPass string
		auth, user string
	}{
		{"none", Target{}, Login{}, "", "", ""},
		{"password", Target{Auth: "pw"}, Login{Password: "pw"}, "pw", "***", ""},
		{"tair user:password", Target{Auth: "u:pw"}, Login{User: "u", Password: "pw", Fallback: "u:pw"}, "u:pw", "u:***", "u"},
		{"default user", Target{Auth: "default:pw"}, Login{User: "default", Password: "pw", Fallback: "default:pw"}, "pw", "default:***", "default"},
		{"tair form only", Target{Auth: "u:pw", TairAuthOnly: true}, Login{Password: "u:pw"}, "u:pw", "u:***", "u"},
		{"acl flags", Target{User: "u", Password: "pw"}, Login{User: "u", Password: "pw"}, "u:pw", "***", "u"},
		{"password with colon in flags", Target{Password: "a:b"}, Login{Password: "a:b"}, "a:b", "***", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.login, tc.t.Login())
			assert.Equal(t, tc.serverPass, tc.t.ServerPassword())
			r := tc.t.Result()
			assert.Equal(t, tc.auth, r.Auth)
			assert.Equal(t, tc.user, r.User)
			assert.NotContains(t, r.Auth, "pw")
		})
	}
}

func TestHostPort(t *testing.T) {
	got, err := HostPort("10.0.0.1", 6380)
	assert.NoError(t, err)
	assert.Equal(t, "10.0.0.1:6380", got)
	got, err = HostPort("h:7000", 1)
	assert.NoError(t, err)
	assert.Equal(t, "h:7000", got)
	_, err = HostPort("h", 70000)
	assert.ErrorContains(t, err, "bad port")
	assert.ErrorContains(t, Target{Protocol: 4}.Validate(), "--resp must be 2 or 3")
}
