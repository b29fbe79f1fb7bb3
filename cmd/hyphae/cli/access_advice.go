package cli

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// systemDataDir is the data dir of a system install (configs/hyphae.service).
const systemDataDir = "/var/lib/hyphae"

// accessDoc is where the user-facing text on access lives.
const accessDoc = "docs/access-and-upgrades.md"

func (g *globals) socket() string { return g.agent.Socket(g.dataDir) }

// noAgentAdvice: nothing answers. On the socket, the command that starts
// an agent, and the system install's data dir when its socket is there
// and the user looked elsewhere (the CLI's default is ~/.hyphae).
func (g *globals) noAgentAdvice() string {
	if g.remote.addr != "" {
		return fmt.Sprintf("no agent answers at %s (connection refused): is it running, with api.listen on that address (`hyphae info` on its machine shows it)?", g.remote.addr)
	}
	msg := fmt.Sprintf("no agent is running on data dir %s; start one with `hyphae run --data-dir %s` (or `hyphae init` first)", g.dataDir, g.dataDir)
	sys := g.agent.Socket(systemDataDir)
	if abs, _ := filepath.Abs(g.dataDir); abs != systemDataDir {
		if _, err := os.Lstat(sys); err == nil || os.IsPermission(err) {
			msg += fmt.Sprintf("; a system agent's socket is at %s: use --data-dir %s (or export HYPHAE_DATA_DIR=%s)", sys, systemDataDir, systemDataDir)
		}
	}
	return msg
}

// socketDeniedAdvice: the socket exists but is not this user's to use.
// It says which group to join (the one the socket is shared with, else
// that the agent shares it with none), or to use the TCP API instead.
func socketDeniedAdvice(path string) string {
	tcp := fmt.Sprintf("or set HYPHAE_ADDR and HYPHAE_TOKEN_FILE to use the agent's TCP API (%s)", accessDoc)
	msg := fmt.Sprintf("permission denied on %s: ", path)
	gid, shared := sharedGroup(path)
	name := groupName(gid)
	switch {
	case !shared:
		return msg + fmt.Sprintf("the agent does not share its socket with a group: set `api.socket_group: hyphae` in its config and restart it, "+
			"then add yourself to group hyphae (sudo usermod -aG hyphae $USER), %s", tcp)
	case inGroupNotSession(gid):
		return msg + fmt.Sprintf("you are in group %s, but this login session is older than that: log in again (or run `newgrp %s`), %s", name, name, tcp)
	}
	return msg + fmt.Sprintf("add yourself to group %s (sudo usermod -aG %s $USER, then log in again) %s", name, name, tcp)
}

// sharedGroup reports the group the socket at path is shared with: the
// socket's when it is group read-write, else its directory's when that
// cannot be entered to look (a socket is shared with its directory).
func sharedGroup(path string) (int, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		return int(st.Gid), st.Mode&0o060 == 0o060
	}
	if err := syscall.Stat(filepath.Dir(path), &st); err == nil {
		return int(st.Gid), st.Mode&0o010 != 0
	}
	return -1, false
}

func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name
	}
	if gid < 0 {
		return "hyphae"
	}
	return strconv.Itoa(gid)
}

// inGroupNotSession: /etc/group lists the user in gid but this process
// does not have it (usermod -aG takes effect at the next login).
func inGroupNotSession(gid int) bool {
	u, err := user.Current()
	if err != nil {
		return false
	}
	ids, err := u.GroupIds()
	if err != nil || !slices.Contains(ids, strconv.Itoa(gid)) {
		return false
	}
	have, err := os.Getgroups()
	return err == nil && !slices.Contains(have, gid) && os.Getegid() != gid
}

// unauthorizedAdvice: the TCP API refused the token (or none was sent).
func (g *globals) unauthorizedAdvice() string {
	what := "the token was refused"
	if tok, err := g.remote.token(); err == nil && tok == "" {
		what = "no token was sent"
	}
	return fmt.Sprintf("the agent at %s answered 401 unauthorized: %s. Set HYPHAE_TOKEN_FILE (or --token-file) to a file holding the agent's API token: "+
		"it is api.token in the agent's data dir (on a system install: sudo cat %s/api.token > ~/.hyphae-token; chmod 600 ~/.hyphae-token), "+
		"or put the token itself in HYPHAE_TOKEN", g.remote.addr, what, systemDataDir)
}
