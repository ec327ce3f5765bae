package endpoint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLoginAndRedaction(t *testing.T) {
	tests := []struct {
		name       string
		t          Target
		login      Login
		serverUser string
		auth, user string
	}{
		{"none", Target{}, Login{}, "", "", ""},
		{"password", Target{Auth: "pw"}, Login{Password: "pw"}, "", "***", ""},
		{"tair user:password", Target{Auth: "u:pw"}, Login{User: "u", Password: "pw", Fallback: "u:pw"}, "u", "u:***", "u"},
		{"default user", Target{Auth: "default:pw"}, Login{User: "default", Password: "pw", Fallback: "default:pw"}, "", "default:***", "default"},
		{"acl form known", Target{Auth: "u:pw", AuthForm: AuthACL}, Login{User: "u", Password: "pw"}, "u", "u:***", "u"},
		{"acl flags", Target{User: "u", Password: "pw"}, Login{User: "u", Password: "pw"}, "u", "***", "u"},
		{"password with colon in flags", Target{Password: "a:b"}, Login{Password: "a:b"}, "", "***", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.login, tc.t.Login())
			user, pw := tc.t.ServerAccount()
			assert.Equal(t, tc.serverUser, user)
			assert.Equal(t, tc.login.Password, pw)
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
	assert.ErrorContains(t, Target{Protocol: 4}.Validate(), "the protocol must be 2 or 3")
}
