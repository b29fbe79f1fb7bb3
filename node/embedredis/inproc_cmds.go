package embedredis

import (
	"path"
	"strconv"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
)

// limitDatabases makes miniredis (which accepts any database index and has
// no CONFIG command) act like redis-server --databases n: SELECT, MOVE and
// SWAPDB with an index >= n fail, and CONFIG GET databases answers n, so the
// store's check of which context ids it can serve works on both kinds.
//
// Both run outside miniredis's own command table, so they answer before
// AUTH (they reveal only n) and are not queued inside MULTI.
func limitDatabases(srv *server.Server, n int) error {
	srv.SetPreHook(func(c *server.Peer, cmd string, args ...string) bool {
		for _, a := range dbIndexArgs(cmd, args) {
			if id, err := strconv.Atoi(a); err == nil && id >= n {
				c.WriteError("ERR DB index is out of range")
				return true
			}
		}
		return false // miniredis answers valid and malformed indexes itself
	})
	return srv.Register("CONFIG", func(c *server.Peer, _ string, args []string) {
		configCommand(c, args, n)
	})
}

// dbIndexArgs returns the arguments of cmd that name a database.
func dbIndexArgs(cmd string, args []string) []string {
	switch {
	case cmd == "SELECT" && len(args) == 1:
		return args
	case cmd == "MOVE" && len(args) == 2:
		return args[1:]
	case cmd == "SWAPDB" && len(args) == 2:
		return args
	}
	return nil
}

// configCommand answers CONFIG GET for "databases" (any other parameter is
// unknown, which Redis answers with an empty result) and refuses the rest.
func configCommand(c *server.Peer, args []string, n int) {
	if len(args) < 2 || !strings.EqualFold(args[0], "GET") {
		c.WriteError("ERR the in-process Redis supports only CONFIG GET")
		return
	}
	var match bool
	for _, pattern := range args[1:] {
		ok, _ := path.Match(strings.ToLower(pattern), "databases")
		match = match || ok
	}
	if !match {
		c.WriteMapLen(0)
		return
	}
	c.WriteMapLen(1)
	c.WriteBulk("databases")
	c.WriteBulk(strconv.Itoa(n))
}
