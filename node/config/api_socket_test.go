package config

import (
	"os/user"
	"strconv"
	"strings"
	"testing"
)

// A socket group that does not exist is a validation error that says how
// to create it or go without; an empty one is today's private socket.
func TestSocketGroupMustExist(t *testing.T) {
	c := &Config{}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	if gid := c.API.SocketGID(); gid != -1 {
		t.Fatalf("SocketGID with no group = %d, want -1 (not shared)", gid)
	}
	c.API.SocketGroup = "no-such-group-hyphae-test"
	err := c.Validate()
	for _, w := range []string{`api.socket_group: group "no-such-group-hyphae-test" does not exist`, "groupadd", "leave api.socket_group empty"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("Validate with a missing group = %v; want %q", err, w)
		}
	}
}

// The agent's own primary group is one it may give the socket to.
func TestSocketGroupOwnGroup(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		t.Skip("the primary group has no name:", err)
	}
	c := &Config{API: API{SocketGroup: g.Name}}
	if errs := c.API.validateSocketGroup(); len(errs) != 0 {
		t.Fatalf("socket_group %s (the agent's own group): %v", g.Name, errs)
	}
	if gid := c.API.SocketGID(); u.Gid != strconv.Itoa(gid) {
		t.Fatalf("SocketGID = %d, want %s", gid, u.Gid)
	}
}
