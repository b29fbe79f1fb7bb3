package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// ctOpen starts a real redis-server and opens a Store on it.
func ctOpen(tb testing.TB, opt ...testredis.Options) (*store.Store, *testredis.Server) {
	tb.Helper()
	srv := testredis.Start(tb, opt...)
	s, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s, srv
}

// ctCtx is the test's context with a generous deadline, so a hang fails the
// test instead of the whole run.
func ctCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// ctEventually polls cond until it is true or the deadline passes.
func ctEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ctFieldError asserts err carries a *model.FieldError naming key and field.
func ctFieldError(t *testing.T, err error, key, field string) {
	t.Helper()
	var fe *model.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("want a *model.FieldError for %s %s, got %v", key, field, err)
	}
	if fe.Key != key || fe.Field != field {
		t.Fatalf("FieldError names %q %q, want %q %q", fe.Key, fe.Field, key, field)
	}
	if msg := err.Error(); !strings.Contains(msg, key) || !strings.Contains(msg, field) {
		t.Fatalf("error %q does not name key %s and field %s", msg, key, field)
	}
}

const ctUni = "Grüße, 世界 🍄 \u0000 end"

var ctBigScript = func() string {
	var b strings.Builder
	for b.Len() < 1<<20 {
		b.WriteString("echo 'héllo \"wörld\" 🍄' \\ \t$HOME\n")
	}
	return b.String()[:1<<20]
}()

// ctDispatched saves job id of caller 1 in context ctxID as dispatched,
// at attempt, as a job sent to another agent stands before its result;
// it returns the job's key.
func ctDispatched(t *testing.T, s *store.Store, ctxID, id uint64, attempt int64) string {
	t.Helper()
	j := &model.RunnerJob{ID: id, CallerID: 1, ContextID: ctxID, Script: "-", ScriptType: "sh",
		Status: model.JobDispatched, Attempt: attempt}
	if err := s.Jobs.SaveJob(ctCtx(t), j); err != nil {
		t.Fatal(err)
	}
	return store.JobKey(1, id)
}

func ctJob(ctxID, caller, id uint64) *model.RunnerJob {
	return &model.RunnerJob{
		ID:            id,
		CallerID:      caller,
		ContextID:     ctxID,
		Name:          "build " + ctUni,
		FlowID:        99,
		Script:        "echo " + ctUni,
		ScriptType:    "sh",
		Timeout:       3600,
		Retries:       2,
		EnvVars:       map[string]string{"PATH": "/bin", "UNI": ctUni, "E": ""},
		Result:        map[string]string{"stdout": "done\n"},
		Prerequisites: []string{"40", "41"},
		Dependends:    []uint64{43},
		Status:        model.JobStarted,
		Runner:        "12D3KooWPeer",
		Error:         "exit 1: " + ctUni,
		Attempt:       3,
		CreatedAt:     1700000000,
		UpdatedAt:     1700000001,
		Extra:         model.Hash{"priority": "high"},
	}
}
