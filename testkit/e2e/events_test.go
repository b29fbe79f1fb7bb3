package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// The order saga of docs/events.md through the CLI, with a real kill -9 of
// the agent while the run waits for the payment: the restarted agent takes
// the payment published to it and ships the order, in the same run.
func TestEventSagaSurvivesKill9(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	saga, err := os.ReadFile("../../configs/flows/order-saga.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a.hy(t, "event", "trigger", "add", writeFlow(t, string(saga)), "--json")
	a.hy(t, "event", "publish", "-c", "1", "order.created", "--data", `{"order_id": "o-k9", "sku": "book"}`, "--json")

	var id string
	eventually(t, 60*time.Second, "the saga waiting for its payment", func() bool {
		var fs []struct {
			ID   uint64 `json:"id"`
			Name string `json:"name"`
		}
		decode(t, a.hy(t, "flow", "list", "-c", "1", "--json"), &fs)
		if len(fs) != 1 {
			return false
		}
		id = strconv.FormatUint(fs[0].ID, 10)
		var f flowOut
		decode(t, a.hy(t, "flow", "status", id, "-c", "1", "--json"), &f)
		return f.job(t, "wait_payment").State == "dispatched"
	})
	a.proc.kill9()
	a.restart(t)

	a.hy(t, "event", "publish", "-c", "1", "payment.received", "--data", `{"order_id": "o-k9", "amount": 12}`, "--json")
	var f flowOut
	eventually(t, 60*time.Second, "the saga to end after the restart", func() bool {
		decode(t, a.hy(t, "flow", "status", id, "-c", "1", "--json"), &f)
		return f.terminal()
	})
	if f.Status != "finished" || f.job(t, "ship").Result["shipped"] != "o-k9" ||
		!strings.Contains(f.job(t, "wait_payment").Result["event"], `"amount":12`) {
		t.Fatalf("after kill -9 and restart: flow %s, jobs %+v; want finished, shipped o-k9", f.Status, f.Jobs)
	}
	var events []struct {
		Name string `json:"name"`
	}
	decode(t, a.hy(t, "event", "list", "-c", "1", "--json"), &events)
	if len(events) != 2 {
		t.Fatalf("events: %+v, want order.created and payment.received", events)
	}
}
