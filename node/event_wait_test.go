package node_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// orderSaga is the docs' example (configs/flows/order-saga.yaml), its
// payment wait cut to timeout.
func orderSaga(t *testing.T, timeout string) string {
	t.Helper()
	b, err := os.ReadFile("../configs/flows/order-saga.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(b), "timeout: 30m", "timeout: "+timeout, 1)
}

func orderCreated(t *testing.T, a *agent, order string) {
	t.Helper()
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created",
		Data: json.RawMessage(`{"order_id": "` + order + `", "sku": "book"}`)})
}

func paymentReceived(t *testing.T, a *agent, order string) {
	t.Helper()
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "payment.received",
		Data: json.RawMessage(`{"order_id": "` + order + `", "amount": 12}`)})
}

// sagaRun waits for the run of the saga for order and returns its id.
func sagaRun(t *testing.T, a *agent, order string) uint64 {
	t.Helper()
	var id uint64
	eventually(t, 30*time.Second, "the saga run of "+order, func() bool {
		for _, s := range flowsNamed(t, a, 1, "order-saga") {
			var v wire.FlowView
			a.call(t, "flow.status", wire.FlowRef{Context: 1, ID: s.ID}, &v)
			if v.CorrelationID == order {
				id = s.ID
			}
		}
		return id != 0
	})
	return id
}

func flowStatus(t *testing.T, a *agent, id uint64) *wire.FlowView {
	t.Helper()
	var v wire.FlowView
	a.call(t, "flow.status", wire.FlowRef{Context: 1, ID: id}, &v)
	return &v
}

// waitParked waits until the run's payment wait is parked in Redis.
func waitParked(t *testing.T, a *agent, id uint64) {
	t.Helper()
	db := a.redis.Client(t, 1)
	eventually(t, 30*time.Second, "wait_payment parked", func() bool {
		key := jobOf(t, flowStatus(t, a, id), "wait_payment").Key
		v, _ := db.HGet(t.Context(), key, "wait_event").Result()
		return v == "payment.received"
	})
}

// A run waiting for payment.received goes on when the payment of its own
// order comes, with the payment reaching the next job; the run of another
// order keeps waiting.
func TestWaitForContinuesOnItsCorrelation(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, orderSaga(t, "30m"))
	orderCreated(t, a, "o-1")
	orderCreated(t, a, "o-2")
	one, two := sagaRun(t, a, "o-1"), sagaRun(t, a, "o-2")
	waitParked(t, a, one)
	waitParked(t, a, two)

	paymentReceived(t, a, "o-1")
	v := waitFlow(t, a, flowStatus(t, a, one))
	ship := jobOf(t, v, "ship")
	if v.Status != "finished" || ship.Result["shipped"] != "o-1" {
		t.Fatalf("run of o-1: %s, ship %+v; want finished, shipped o-1", v.Status, ship)
	}
	paid := jobOf(t, v, "wait_payment").Result
	if paid["event"] != `{"order_id":"o-1","amount":12}` || paid["event_name"] != "payment.received" {
		t.Fatalf("wait_payment's result %v: want the payment event", paid)
	}
	// The payment of o-1 was handled in full (its run ended): o-2 waits on.
	w := flowStatus(t, a, two)
	if w.Terminal() || jobOf(t, w, "wait_payment").Status != "dispatched" {
		t.Fatalf("run of o-2 after o-1's payment: %s, wait_payment %s; want it still waiting",
			w.Status, jobOf(t, w, "wait_payment").Status)
	}
}

// A payment that does not come in time fails the wait, and the flow's
// failure path releases the stock reserved (compensation).
func TestWaitForTimeoutCompensates(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, orderSaga(t, "1s"))
	orderCreated(t, a, "o-late")
	v := waitFlow(t, a, flowStatus(t, a, sagaRun(t, a, "o-late")))
	eventually(t, 30*time.Second, "compensation done", func() bool {
		v = flowStatus(t, a, v.ID)
		return v.Compensation != "" && v.Compensation != "compensating"
	})
	wait, reserve := jobOf(t, v, "wait_payment"), jobOf(t, v, "reserve")
	if v.Status != "error" || !strings.Contains(wait.Error, "no payment.received event") {
		t.Fatalf("flow %s, wait_payment error %q: want error, the wait timed out", v.Status, wait.Error)
	}
	if v.Compensation != "compensated" || reserve.Compensation == nil || reserve.Compensation.Status != "finished" {
		t.Fatalf("compensation %q, reserve's %+v: want the stock released", v.Compensation, reserve.Compensation)
	}
	if jobOf(t, v, "ship").State != "cancelled" {
		t.Fatalf("ship is %s, want cancelled", jobOf(t, v, "ship").State)
	}
}

// A run parked on wait_for survives the agent's restart: the payment
// published to the new agent process resumes it.
func TestWaitForSurvivesRestart(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, orderSaga(t, "30m"))
	orderCreated(t, a, "o-7")
	id := sagaRun(t, a, "o-7")
	waitParked(t, a, id)
	a.stop(t)

	a2 := startAgent(t, agentOpts{redis: a.redis, dir: a.dir})
	paymentReceived(t, a2, "o-7")
	v := waitFlow(t, a2, flowStatus(t, a2, id))
	if v.Status != "finished" || jobOf(t, v, "ship").Result["shipped"] != "o-7" {
		t.Fatalf("after a restart: flow %s, ship %+v; want finished", v.Status, jobOf(t, v, "ship"))
	}
	if runs := flowsNamed(t, a2, 1, "order-saga"); len(runs) != 1 {
		t.Fatalf("%d runs after the restart, want the one: %+v", len(runs), runs)
	}
}

// Cancelling a run parked on wait_for ends the wait at once (no runner
// holds it): the step ends error, stopped, the stock is released, and a
// payment that comes later changes nothing.
func TestWaitForCancelledRunStopsWaiting(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, orderSaga(t, "30m"))
	orderCreated(t, a, "o-c")
	id := sagaRun(t, a, "o-c")
	waitParked(t, a, id)
	a.call(t, "flow.cancel", wire.FlowRef{Context: 1, ID: id}, nil)
	var v *wire.FlowView
	eventually(t, 30*time.Second, "the wait stopped and the stock released", func() bool {
		v = flowStatus(t, a, id)
		return jobOf(t, v, "wait_payment").Status == "error" && v.Compensation == "compensated"
	})
	if w := jobOf(t, v, "wait_payment"); !strings.Contains(w.Error, "stopped") {
		t.Fatalf("wait_payment: %+v, want error stopped", w)
	}
	paymentReceived(t, a, "o-c")
	orderCreated(t, a, "o-after") // handled after the payment: once its run exists, the payment was seen
	sagaRun(t, a, "o-after")
	if w := jobOf(t, flowStatus(t, a, id), "wait_payment"); w.Status != "error" {
		t.Fatalf("a late payment moved the stopped wait: %+v", w)
	}
}
