package node_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/need"
)

// onOrderWho is a trigger whose job says who it runs as and whether it
// sees the agent's data dir.
const onOrderWho = `
name: on-order-who
context: 1
on: {event: order.created}
jobs:
  who:
    type: sh
    script: |
      echo "uid=$(id -u)" >> "$HYPHAE_RESULT"
      [ -e "$AGENT_DIR/actor.key" ] && echo "key=visible" >> "$HYPHAE_RESULT"
      true
`

// A run started by another actor's event counts as that actor's: its jobs
// run contained, while the same trigger fired by this agent's own event
// runs on the host (runner.isolation.own: host).
func TestRunStartedByAnotherActorsEventIsContained(t *testing.T) {
	t.Parallel()
	need.Root(t, "the root mode of containment needs root")
	a := startAgent(t, agentOpts{contained: true})
	b := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.grant", map[string]any{"id": 1, "actor": b.peerID(), "role": "executor"}, nil)
	waitPeerUp(t, b, a.peerID())
	addTrigger(t, a, onOrderWho[:len(onOrderWho)-1]+"\nenv: {AGENT_DIR: "+strconv.Quote(a.dir)+"}\n")

	publish(t, b, wire.EventPublishParams{Context: 1, To: a.peerID(), Name: "order.created", Data: json.RawMessage(`{}`)})
	res := jobOf(t, waitRun(t, a, 1, "on-order-who"), "who").Result
	t.Logf("remote-triggered job: %v", res)
	if res["uid"] == "0" || res["key"] != "" {
		t.Fatalf("a run started by b's event ran as uid %s (key %q); want contained", res["uid"], res["key"])
	}

	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created", Data: json.RawMessage(`{}`)})
	eventually(t, 30*time.Second, "the own event's run", func() bool { return len(flowsNamed(t, a, 1, "on-order-who")) == 2 })
	for _, f := range flowsNamed(t, a, 1, "on-order-who") {
		var v wire.FlowView
		a.call(t, "flow.status", wire.FlowRef{Context: 1, ID: f.ID}, &v)
		v = *waitFlow(t, a, &v)
		if r := jobOf(t, &v, "who").Result; r["uid"] == "0" {
			return // the own run ran on the host
		}
	}
	t.Fatal("the run of this agent's own event ran contained too; want it on the host")
}
