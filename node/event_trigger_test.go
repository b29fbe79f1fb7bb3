package node_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
)

// onOrderFlow starts on order.created events for books, its run's
// correlation id the payload's order_id; its job reports what it got.
const onOrderFlow = `
name: on-order
context: 1
on: {event: order.created, where: {kind: book}, correlation: order_id}
jobs:
  reserve:
    type: sh
    script: |
      echo "name=$HYPHAE_EVENT_NAME" >> "$HYPHAE_RESULT"
      echo "corr=$HYPHAE_CORRELATION_ID" >> "$HYPHAE_RESULT"
      printf 'event=%s\n' "$HYPHAE_EVENT" >> "$HYPHAE_RESULT"
`

func addTrigger(t *testing.T, a *agent, text string) *scheduler.TriggerView {
	t.Helper()
	var v scheduler.TriggerView
	a.call(t, "event.trigger.add", wire.TriggerAddParams{FileContent: text, FileName: "on.yaml"}, &v)
	return &v
}

func publish(t *testing.T, a *agent, p wire.EventPublishParams) *wire.EventView {
	t.Helper()
	var v wire.EventView
	a.call(t, "event.publish", p, &v)
	return &v
}

// flowsNamed lists the flows of context ctx called name.
func flowsNamed(t *testing.T, a *agent, ctx uint64, name string) []scheduler.Summary {
	t.Helper()
	var all, out []scheduler.Summary
	a.call(t, "flow.list", map[string]any{"context": ctx}, &all)
	for _, s := range all {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// waitRun waits for the one run of flow name and follows it to its end.
func waitRun(t *testing.T, a *agent, ctx uint64, name string) *wire.FlowView {
	t.Helper()
	var id uint64
	eventually(t, 30*time.Second, "a run of "+name, func() bool {
		fs := flowsNamed(t, a, ctx, name)
		if len(fs) > 0 {
			id = fs[0].ID
		}
		return id != 0
	})
	var v wire.FlowView
	a.call(t, "flow.status", wire.FlowRef{Context: ctx, ID: id}, &v)
	return waitFlow(t, a, &v)
}

// An event published on the agent starts one run of the flow whose on:
// it matches; the run's job gets the event as env, and the run carries
// the correlation id taken from the payload.
func TestEventStartsTriggeredRun(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, onOrderFlow)
	ev := publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created",
		Data: json.RawMessage(`{"order_id": "o-42", "kind": "book"}`)})

	v := waitRun(t, a, 1, "on-order")
	res := jobOf(t, v, "reserve").Result
	if v.Status != "finished" || res["name"] != "order.created" || res["corr"] != "o-42" ||
		res["event"] != `{"order_id":"o-42","kind":"book"}` {
		t.Fatalf("run %s, job result %v: want finished with the event's name, payload and order id", v.Status, res)
	}
	if v.CorrelationID != "o-42" || v.EventID != ev.ID {
		t.Fatalf("run carries correlation %q, event %q; want o-42, %s", v.CorrelationID, v.EventID, ev.ID)
	}
}

// An event whose payload does not match the trigger's where starts
// nothing; the same event id published twice starts one run.
func TestEventWhereRefusesAndIDDedupes(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, onOrderFlow)
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created", ID: "e-dvd",
		Data: json.RawMessage(`{"order_id": "o-1", "kind": "dvd"}`)})
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created", ID: "e-book",
		Data: json.RawMessage(`{"order_id": "o-2", "kind": "book"}`)})
	// The same event again, named by its idempotency key (the event's id).
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created", Idempotency: "e-book",
		Data: json.RawMessage(`{"order_id": "o-2", "kind": "book"}`)})
	// A marker event after them: once its run exists, the three before
	// were handled (the events list is handled in order).
	addTrigger(t, a, strings.Replace(strings.Replace(onOrderFlow, "on-order", "marker", 1), "kind: book", "kind: marker", 1))
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created",
		Data: json.RawMessage(`{"order_id": "m", "kind": "marker"}`)})
	waitRun(t, a, 1, "marker")

	runs := flowsNamed(t, a, 1, "on-order")
	if len(runs) != 1 {
		t.Fatalf("%d runs of on-order, want 1 (the dvd order does not match; e-book twice is one event): %+v", len(runs), runs)
	}
	var v wire.FlowView
	a.call(t, "flow.status", wire.FlowRef{Context: 1, ID: runs[0].ID}, &v)
	if v.CorrelationID != "o-2" {
		t.Fatalf("the run's correlation id is %q, want o-2", v.CorrelationID)
	}
}

// A malformed event is refused with an error that names the problem,
// and nothing of it is stored: the events list and later events go on.
func TestMalformedEventRefusedClearly(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, onOrderFlow)
	for _, c := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"context": 1, "name": "order created!", "data": map[string]any{}}, "event name"},
		{map[string]any{"context": 1, "name": "", "data": map[string]any{}}, "event name"},
		{map[string]any{"context": 1, "name": "a.b", "id": "x", "idempotency_key": "y"}, "idempotency_key"},
	} {
		err := a.client.Call(t.Context(), "event.publish", c.params, nil)
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, c.want) {
			t.Fatalf("event.publish %v: %v, want invalid params naming %q", c.params, err, c.want)
		}
	}
	// Bad JSON cannot pass the API's own decoding; over the raw contract
	// it is refused by the bridge (see TestRawEventContract).
	var evs []wire.EventView
	a.call(t, "event.list", map[string]any{"context": 1}, &evs)
	if len(evs) != 0 {
		t.Fatalf("refused events were stored: %+v", evs)
	}
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created",
		Data: json.RawMessage(`{"order_id": "o-3", "kind": "book"}`)})
	if v := waitRun(t, a, 1, "on-order"); v.Status != "finished" {
		t.Fatalf("the good event's run: %s", v.Status)
	}
}

// on: {flow_finished: …} starts a run when that flow ends with the status
// asked for, and on: {job_ended: …} when a job of that name ends; a flow
// that ends otherwise starts nothing.
func TestFlowFinishedAndJobEndedTriggers(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, "name: after-build\ncontext: 1\non: {flow_finished: build, status: finished}\n"+
		"jobs:\n  note: {type: sh, script: 'printf \"got=%s\\n\" \"$HYPHAE_EVENT\" >> \"$HYPHAE_RESULT\"'}\n")
	addTrigger(t, a, "name: after-test\ncontext: 1\non: {job_ended: test, status: error}\n"+
		"jobs:\n  note: {type: sh, script: 'echo \"job=$HYPHAE_EVENT_NAME\" >> \"$HYPHAE_RESULT\"'}\n")
	failed := runFlow(t, a, "name: build\ncontext: 1\njobs:\n  test: {type: sh, script: 'exit 3'}\n")
	waitFlow(t, a, failed)
	ok := runFlow(t, a, "name: build\ncontext: 1\njobs:\n  test: {type: sh, script: 'true'}\n")
	waitFlow(t, a, ok)

	v := waitRun(t, a, 1, "after-build")
	got := jobOf(t, v, "note").Result["got"]
	if !strings.Contains(got, `"flow_id":`+strconv.FormatUint(ok.ID, 10)) || !strings.Contains(got, `"status":"finished"`) {
		t.Fatalf("after-build got %s: want the finished run %d", got, ok.ID)
	}
	if w := waitRun(t, a, 1, "after-test"); jobOf(t, w, "note").Result["job"] != "job.ended" {
		t.Fatalf("after-test: %+v", jobOf(t, w, "note"))
	}
	if n := len(flowsNamed(t, a, 1, "after-build")); n != 1 {
		t.Fatalf("%d runs of after-build, want 1 (the failed build matches no trigger)", n)
	}
	if n := len(flowsNamed(t, a, 1, "after-test")); n != 1 {
		t.Fatalf("%d runs of after-test, want 1 (the passing test matches no trigger)", n)
	}
}
