package flowfile_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// on: and wait_for: as the parser reads them, and as the JSON Schema
// editors use agrees.
func TestOnAndWaitForParse(t *testing.T) {
	text := "name: saga\ncontext: 1\non: {event: order.created, where: {kind: book, n: 2}, correlation: order_id}\n" +
		"jobs:\n  a: {type: sh, script: x}\n  w: {needs: a, wait_for: {event: payment.received, correlation: order_id, timeout: 30m}}\n"
	f, _, err := flowfile.Parse([]byte(text), "saga.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if f.On == nil || f.On.Event != "order.created" || f.On.Where["kind"] != "book" || f.On.Where["n"] != "2" ||
		f.On.Correlation != "order_id" {
		t.Fatalf("on: %+v", f.On)
	}
	w := f.Job("w")
	if w.WaitFor == nil || w.WaitFor.Event != "payment.received" || w.WaitFor.Timeout.Minutes() != 30 ||
		w.Type != "wait_for" || w.Runner != "self" {
		t.Fatalf("wait_for step: %+v, spec %+v", w, w.WaitFor)
	}
	if err := flowschema.Validate(loadSchema(t), []byte(text)); err != nil {
		t.Fatalf("the schema refuses it: %v", err)
	}
	f, _, err = flowfile.Parse([]byte("on: {job_ended: build, status: error}\njobs:\n  a: {type: sh, script: x}\n"), "x.yaml", "")
	if err != nil || f.On.Event != flowfile.EventJobEnded || f.On.Where["job"] != "build" || f.On.Where["status"] != "error" {
		t.Fatalf("job_ended: %+v, %v", f.On, err)
	}
}

// Mistakes in on: and wait_for: are refused by the parser, saying what is
// wrong, and by the schema.
func TestOnAndWaitForMistakes(t *testing.T) {
	s := loadSchema(t)
	for _, c := range []struct{ text, want string }{
		{"on: {event: 'order created'}\njobs:\n  a: {type: sh, script: x}\n", "event name"},
		{"on: {event: a, flow_finished: b}\njobs:\n  a: {type: sh, script: x}\n", "one of event, flow_finished or job_ended"},
		{"on: {evnt: a}\njobs:\n  a: {type: sh, script: x}\n", "unknown key"},
		{"jobs:\n  w: {wait_for: {event: paid}}\n", "timeout is required"},
		{"jobs:\n  w: {type: sh, wait_for: {event: paid, timeout: 1m}}\n", "only waits"},
		{"jobs:\n  w: {wait_for: {event: paid, timeout: 1m}, delay: 5m}\n", "only waits"},
		{"jobs:\n  w: {wait_for: {event: paid, timeout: 1m, corelation: x}}\n", "unknown key"},
	} {
		_, _, err := flowfile.Parse([]byte(c.text), "bad.yaml", "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parser: %v, want %q for:\n%s", err, c.want, c.text)
		}
		if err := flowschema.Validate(s, []byte(c.text)); err == nil {
			t.Errorf("the schema accepts:\n%s", c.text)
		}
	}
}

// The flows docs/events.md shows are valid for the parser and the schema.
func TestEventsDocFlows(t *testing.T) {
	b, err := os.ReadFile("../../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	s := loadSchema(t)
	snippets := flowschema.Snippets(b)
	if len(snippets) < 2 {
		t.Fatalf("docs/events.md shows %d flows, want the saga and the trigger", len(snippets))
	}
	for _, text := range snippets {
		f, _, err := flowfile.Parse([]byte(text), "events.md", "../../configs/flows")
		if err != nil {
			t.Errorf("the parser refuses: %v\n%s", err, text)
			continue
		}
		if f.On == nil {
			t.Errorf("no on: in\n%s", text)
		}
		if err := flowschema.Validate(s, []byte(text)); err != nil {
			t.Errorf("the schema refuses: %v\n%s", err, text)
		}
	}
}
