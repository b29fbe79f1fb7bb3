package node_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// node.info names the store's unix socket, so a user can reach the
// contexts with redis-cli -s (the embedded Redis listens on nothing else).
func TestInfoNamesTheRedisSocket(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{unixRedis: true})
	var info wire.InfoView
	a.call(t, "node.info", nil, &info)
	want := strings.TrimPrefix(a.redis.SocketURL, "unix://")
	if i := strings.IndexByte(want, '?'); i >= 0 {
		want = want[:i]
	}
	if info.RedisSocket == "" || info.RedisSocket != want {
		t.Fatalf("node.info redis_socket = %q, want %q", info.RedisSocket, want)
	}
}
