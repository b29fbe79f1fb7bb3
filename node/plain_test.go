package node_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// testBusPlainEnv, set to 1, starts every test agent with bus.plain: CI
// runs the cross-agent and reliability tests once more that way
// (.ci/run), so each shortcut's plain path is known to behave alike.
const testBusPlainEnv = "HYPHAE_TEST_BUS_PLAIN"

func testBusPlain() bool { return os.Getenv(testBusPlainEnv) == "1" }

// requireShortcut skips a test that checks shortcut name's own mechanism
// (config.Shortcuts) when the agents run without it.
func requireShortcut(t testing.TB, name string) {
	t.Helper()
	if testBusPlain() {
		t.Skipf("checks the %s shortcut, off with %s=1", name, testBusPlainEnv)
	}
}

// requirePath skips a test of frames on path (one of paths) that the agents
// do not take: with the direct shortcut off they serve no direct streams.
func requirePath(t testing.TB, path string) {
	t.Helper()
	if path == "direct" {
		requireShortcut(t, "direct")
	}
}

// With bus.plain a cross-agent job takes the plain path and still comes
// home: the API's submit goes through msg_out (pushed there, then taken),
// no frame travels on a direct stream, and the target queues the job for
// its runner's loop instead of claiming it as it materialises it.
func TestBusPlainTakesThePlainPath(t *testing.T) {
	t.Parallel()
	bob := startAgent(t, agentOpts{plain: true})
	alice := startAgent(t, agentOpts{plain: true, bootstrap: []string{bob.addr(t)}})
	grantExecutor(t, bob, 2, alice.peerID())
	msgOut := listEvents(t, alice, "msg_out")
	queued := listEvents(t, bob, "queue:sh")

	var got wire.JobView
	alice.call(t, "job.run", map[string]any{"to": bob.peerID(), "context": 2, "type": "sh",
		"script": `echo "plain=yes" >> "$HYPHAE_RESULT"`, "wait": 60}, &got)
	if got.Status != "finished" || got.Result["plain"] != "yes" {
		t.Fatalf("job at home: %+v", got)
	}
	msgOut.want(t, "lpush", "rpop")
	queued.want(t, "lpush")
	for _, a := range []*agent{alice, bob} {
		if v := metricValue(t, a, `hyphae_bus_frames_sent_total{path="direct"}`); v != 0 {
			t.Errorf("%s sent %v frames on direct streams, want none", a.peerID(), v)
		}
	}
}

// keyEvents collects the keyspace events of one key in every DB of an
// agent's Redis (list commands: the agent's runner turns them on).
type keyEvents struct {
	key string
	ch  <-chan *redis.Message
}

func listEvents(t *testing.T, a *agent, key string) *keyEvents {
	t.Helper()
	c := a.redis.Client(t, 0)
	ctx := context.Background()
	if err := c.ConfigSet(ctx, "notify-keyspace-events", "Kl").Err(); err != nil {
		t.Fatal(err)
	}
	ps := c.PSubscribe(ctx, "__keyspace@*__:"+key)
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(ctx); err != nil { // subscribed before anything happens
		t.Fatal(err)
	}
	return &keyEvents{key: key, ch: ps.Channel()}
}

// want waits until every one of events has happened to the key, in order.
func (k *keyEvents) want(t *testing.T, events ...string) {
	t.Helper()
	var seen []string
	timeout := time.After(30 * time.Second)
	for len(events) > 0 {
		select {
		case m := <-k.ch:
			seen = append(seen, m.Payload)
			if m.Payload == events[0] {
				events = events[1:]
			}
		case <-timeout:
			t.Fatalf("%s: saw %v, still waiting for %v", k.key, seen, events)
		}
	}
}
