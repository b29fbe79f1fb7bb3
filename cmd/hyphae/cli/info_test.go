package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// hyphae info prints lines a person reads, with the store's socket and the
// redis-cli command that reaches it.
func TestInfoTextShowsRedisSocket(t *testing.T) {
	var b bytes.Buffer
	printInfo(&b, &wire.InfoView{PeerID: "12D3KooWx", Roles: []string{"supervisor", "runner"}, DataDir: "/d",
		Socket: "/d/hyphae.sock", Store: "redis-server", Persistent: true, RedisSocket: "/d/redis/redis.sock",
		Contexts: []uint64{1, 2}})
	for _, want := range []string{"peer ID       12D3KooWx", "redis socket  /d/redis/redis.sock",
		"redis-cli -s /d/redis/redis.sock -n <context>", "contexts      1, 2", "API socket    /d/hyphae.sock"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("hyphae info lacks %q:\n%s", want, b.String())
		}
	}
}

// hyphae info says whether mDNS runs, and why not when the config asked
// for it and the agent started without it.
func TestInfoTextShowsMDNS(t *testing.T) {
	for _, c := range []struct {
		v    wire.InfoView
		want string
	}{
		{wire.InfoView{MDNS: true}, "mDNS          on\n"},
		{wire.InfoView{}, "mDNS          off\n"},
		{wire.InfoView{MDNSOff: "no network interface can multicast"}, "mDNS          off: no network interface can multicast (use --bootstrap"},
	} {
		var b bytes.Buffer
		printInfo(&b, &c.v)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("hyphae info lacks %q:\n%s", c.want, b.String())
		}
	}
}
