package model_test

import (
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

var allJobStates = []model.JobStatus{"", model.JobDispatched, model.JobWaiting, model.JobStarted, model.JobError, model.JobFinished}

// wantJobMoves is the job lifecycle written out by hand: what a user of the
// contract may rely on.
var wantJobMoves = map[model.JobStatus][]model.JobStatus{
	"":                  {model.JobDispatched, model.JobWaiting, model.JobStarted, model.JobError, model.JobFinished},
	model.JobDispatched: {model.JobDispatched, model.JobWaiting, model.JobStarted, model.JobError, model.JobFinished},
	model.JobWaiting:    {model.JobWaiting, model.JobDispatched, model.JobStarted, model.JobError},
	model.JobStarted:    {model.JobStarted, model.JobFinished, model.JobError, model.JobDispatched},
	model.JobError:      {model.JobDispatched},
	model.JobFinished:   {},
}

func TestJobStatusCanMoveTo(t *testing.T) {
	targets := append(allJobStates, "bogus", "FINISHED")
	for _, from := range append(allJobStates, "bogus") {
		allowed := map[model.JobStatus]bool{}
		for _, n := range wantJobMoves[from] {
			allowed[n] = true
		}
		for _, to := range targets {
			want := allowed[to]
			if got := from.CanMoveTo(to); got != want {
				t.Errorf("%q -> %q: CanMoveTo = %v, want %v", from, to, got, want)
			}
			err := from.CheckMove(to)
			if want && err != nil {
				t.Errorf("%q -> %q: CheckMove = %v", from, to, err)
			}
			if !want && !errors.Is(err, model.ErrBadTransition) {
				t.Errorf("%q -> %q: CheckMove = %v, want ErrBadTransition", from, to, err)
			}
		}
	}
	// The cases users notice.
	for _, c := range []struct{ from, to model.JobStatus }{
		{model.JobFinished, model.JobStarted},
		{model.JobFinished, model.JobDispatched},
		{model.JobFinished, model.JobError},
		{model.JobError, model.JobStarted},
		{model.JobError, model.JobFinished},
		{model.JobWaiting, model.JobFinished},
	} {
		if c.from.CanMoveTo(c.to) {
			t.Errorf("%s -> %s must be refused", c.from, c.to)
		}
	}
}

func TestJobMovesIsTheTableAndACopy(t *testing.T) {
	m := model.JobMoves()
	if len(m) != len(wantJobMoves) {
		t.Fatalf("JobMoves has %d states, want %d", len(m), len(wantJobMoves))
	}
	for from, to := range m {
		for _, n := range to {
			if !from.CanMoveTo(n) {
				t.Errorf("JobMoves says %q -> %q but CanMoveTo disagrees", from, n)
			}
		}
	}
	m[model.JobFinished] = append(m[model.JobFinished], model.JobStarted)
	if model.JobFinished.CanMoveTo(model.JobStarted) {
		t.Fatal("mutating JobMoves' result changed the lifecycle")
	}
}

func TestJobStatusValidTerminal(t *testing.T) {
	for _, s := range allJobStates[1:] {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for _, s := range []model.JobStatus{"", "bogus", "Finished"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
	for s, want := range map[model.JobStatus]bool{model.JobError: true, model.JobFinished: true,
		model.JobStarted: false, model.JobDispatched: false, model.JobWaiting: false, "": false} {
		if s.Terminal() != want {
			t.Errorf("%q.Terminal() = %v", s, !want)
		}
	}
}

func TestFlowAndMessageStatus(t *testing.T) {
	flows := []model.FlowStatus{"", model.FlowDispatched, model.FlowStarted, model.FlowError, model.FlowFinished, "bogus"}
	wantFlow := map[model.FlowStatus]map[model.FlowStatus]bool{
		"":                   {model.FlowDispatched: true, model.FlowStarted: true, model.FlowError: true, model.FlowFinished: true},
		model.FlowDispatched: {model.FlowDispatched: true, model.FlowStarted: true, model.FlowError: true, model.FlowFinished: true},
		model.FlowStarted:    {model.FlowStarted: true, model.FlowError: true, model.FlowFinished: true},
	}
	for _, from := range flows {
		for _, to := range flows {
			if got := from.CanMoveTo(to); got != wantFlow[from][to] {
				t.Errorf("flow %q -> %q = %v", from, to, got)
			}
		}
	}
	msgs := []model.MessageStatus{"", model.MsgDispatched, model.MsgAcknowledged, model.MsgError, model.MsgProcessed, "bogus"}
	wantMsg := map[model.MessageStatus]map[model.MessageStatus]bool{
		"":                    {model.MsgDispatched: true, model.MsgAcknowledged: true, model.MsgError: true, model.MsgProcessed: true},
		model.MsgDispatched:   {model.MsgDispatched: true, model.MsgAcknowledged: true, model.MsgError: true, model.MsgProcessed: true},
		model.MsgAcknowledged: {model.MsgAcknowledged: true, model.MsgError: true, model.MsgProcessed: true},
	}
	for _, from := range msgs {
		for _, to := range msgs {
			if got := from.CanMoveTo(to); got != wantMsg[from][to] {
				t.Errorf("message %q -> %q = %v", from, to, got)
			}
		}
	}
	for _, ty := range []model.MessageType{"job", "chat", "mail", "result", "ack", "stop"} {
		if !ty.Valid() {
			t.Errorf("message type %q not valid", ty)
		}
	}
	if model.MessageType("Job").Valid() || model.MessageType("").Valid() {
		t.Error("bad message type accepted")
	}
}

func TestContextRoles(t *testing.T) {
	c := &model.Context{ID: 1}
	const admin, exec, reader, nobody = 1, 2, 3, 4
	if !c.Grant(admin, model.RoleAdmin) || !c.Grant(exec, model.RoleExecutor) || !c.Grant(reader, model.RoleReader) {
		t.Fatal("first grant reported no change")
	}
	if c.Grant(admin, model.RoleAdmin) {
		t.Error("second grant reported a change")
	}
	if c.Grant(nobody, "owner") {
		t.Error("unknown role granted")
	}
	want := map[uint64][3]bool{ // reader, executor, admin
		admin:  {true, true, true},
		exec:   {true, true, false},
		reader: {true, false, false},
		nobody: {false, false, false},
	}
	for a, w := range want {
		got := [3]bool{c.Has(a, model.RoleReader), c.Has(a, model.RoleExecutor), c.Has(a, model.RoleAdmin)}
		if got != w {
			t.Errorf("actor %d has reader/executor/admin = %v, want %v", a, got, w)
		}
		if c.Has(a, "owner") {
			t.Errorf("actor %d has unknown role", a)
		}
	}
	if !c.Revoke(exec, model.RoleExecutor) || c.Revoke(exec, model.RoleExecutor) {
		t.Error("revoke change reporting wrong")
	}
	if c.Has(exec, model.RoleReader) {
		t.Error("revoked executor can still read")
	}
	// Revoke keeps the other members and does not alias the old slice.
	c.Grant(10, model.RoleReader)
	c.Grant(11, model.RoleReader)
	before := c.Readers
	c.Revoke(10, model.RoleReader)
	if len(c.Readers) != 2 || c.Readers[0] != reader || c.Readers[1] != 11 {
		t.Errorf("readers after revoke = %v", c.Readers)
	}
	if before[1] != 10 {
		t.Error("Revoke modified the previous slice in place")
	}
	for _, r := range []model.Role{model.RoleReader, model.RoleExecutor, model.RoleAdmin} {
		if !r.Valid() {
			t.Errorf("%s invalid", r)
		}
	}
	if model.Role("root").Valid() {
		t.Error("root valid")
	}
}
