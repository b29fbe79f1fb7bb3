package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A job refused for want of a role writes nothing at all to the target
// context's DB — no message, job or mapping, and no counter moved
// (seq:message, seq:job) — whether the agent must ask Redis for ids or
// has some reserved in memory, and however many a stranger sends
// (docs/design.md, "Between agents": a refused message writes nothing to the target). The
// same holds for a context that does not exist.
func TestRefusedMaterializeChangesNothing(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"exec", "stranger"}, map[string]model.Role{"exec": model.RoleExecutor})
	db := srv.Client(t, int(c.ID))
	send := func(ctxID uint64, who, ref string) (bool, error) {
		j := &model.RunnerJob{CallerID: actor[who].ID, ContextID: ctxID, Script: "-", ScriptType: "noop",
			Status: model.JobDispatched, Attempt: 1}
		m := &model.Message{CallerID: actor[who].ID, ContextID: ctxID, MessageType: model.MsgTypeJob,
			Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
		_, created, err := s.Bus.Materialize(ctx, ctxID, "12D3KooW"+who, ref, 1, "job:1:"+ref, m, j)
		return created, err
	}
	refuse := func(ctxID uint64, ref, why string) {
		t.Helper()
		created, err := send(ctxID, "stranger", ref)
		if created || !errors.Is(err, store.ErrDenied) || !strings.Contains(err.Error(), why) {
			t.Fatalf("stranger's job %s: created %v, %v; want ErrDenied saying %q", ref, created, err, why)
		}
	}

	before := dumpDB(t, db)
	refuse(c.ID, "first", "lacks role executor") // no ids reserved yet
	sameDB(t, "after a refused job, no ids reserved", before, dumpDB(t, db))

	if created, err := send(c.ID, "exec", "granted"); err != nil || !created {
		t.Fatalf("executor's job: created %v, %v", created, err)
	}
	before = dumpDB(t, db)
	for i := range 80 { // more than a block of reserved ids
		refuse(c.ID, fmt.Sprint("again", i), "lacks role executor")
	}
	elsewhere := srv.Client(t, int(c.ID)+5)
	refuse(c.ID+5, "nowhere", "not found")
	if err := s.Close(); err != nil { // a reservation ahead under way ends, written
		t.Fatal(err)
	}
	sameDB(t, "after 80 refused jobs, ids reserved", before, dumpDB(t, db))
	if n, err := elsewhere.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("a job refused for a context that does not exist wrote %d keys there (%v)", n, err)
	}
}

// dumpDB returns every key of db with its serialised value (DUMP).
func dumpDB(t *testing.T, db *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	iter := db.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		v, err := db.Dump(ctx, iter.Val()).Result()
		if err != nil {
			t.Fatalf("DUMP %s: %v", iter.Val(), err)
		}
		out[iter.Val()] = v
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameDB fails the test naming the keys that differ between two dumps.
func sameDB(t *testing.T, when string, before, after map[string]string) {
	t.Helper()
	if maps.Equal(before, after) {
		return
	}
	var diff []string
	for k, v := range after {
		if bv, ok := before[k]; !ok || bv != v {
			diff = append(diff, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, k+" (gone)")
		}
	}
	t.Errorf("%s: the target DB changed: %v", when, diff)
}
