package config

import (
	"fmt"
	"os"
	"os/user"
	"slices"
	"strconv"
)

// api.socket_group: the group whose members may use the agent's unix
// socket, so that on a system install (the agent runs as user hyphae)
// people in group hyphae can use the CLI without root. Default empty: the
// socket is the agent's user's alone (0600), as on a laptop where the
// agent and the CLI are the same user. Set, the socket is 0660 and its
// directory (the data dir) 0750, both given to that group; the key, the
// token and the job directories stay the owner's alone.

// validateSocketGroup checks the group exists and the agent may give the
// socket to it: root may give a file to any group, another user only to a
// group it is in.
func (a API) validateSocketGroup() []error {
	if a.SocketGroup == "" {
		return nil
	}
	g, err := lookupGroup(a.SocketGroup)
	if err != nil {
		return []error{fmt.Errorf("api.socket_group: %w", err)}
	}
	gid, _ := strconv.Atoi(g.Gid)
	if os.Geteuid() == 0 || gid == os.Getegid() {
		return nil
	}
	if groups, err := os.Getgroups(); err == nil && slices.Contains(groups, gid) {
		return nil
	}
	u := "this user"
	if cur, err := user.Current(); err == nil {
		u = cur.Username
	}
	return []error{fmt.Errorf("api.socket_group: the agent runs as %s, who is not in group %s, so it cannot give the socket to that group: "+
		"sudo usermod -aG %s %s (then start the agent again), or leave api.socket_group empty", u, a.SocketGroup, a.SocketGroup, u)}
}

// SocketGID is the numeric id of api.socket_group, or -1 when the socket
// is not shared (empty, or a group that does not exist: Validate says so).
func (a API) SocketGID() int {
	if a.SocketGroup == "" {
		return -1
	}
	g, err := lookupGroup(a.SocketGroup)
	if err != nil {
		return -1
	}
	gid, err := strconv.Atoi(g.Gid)
	if err != nil {
		return -1
	}
	return gid
}

// lookupGroup finds a group by name, or by number when the name is
// digits; its error says how to create it.
func lookupGroup(name string) (*user.Group, error) {
	g, err := user.LookupGroup(name)
	if err == nil {
		return g, nil
	}
	if _, numErr := strconv.Atoi(name); numErr == nil {
		if g, err := user.LookupGroupId(name); err == nil {
			return g, nil
		}
	}
	return nil, fmt.Errorf("group %q does not exist: create it (sudo groupadd --system %s) and add the users of the CLI to it "+
		"(sudo usermod -aG %s $USER), or leave api.socket_group empty for a socket only the agent's user may use", name, name, name)
}
