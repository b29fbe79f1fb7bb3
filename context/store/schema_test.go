package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

func schemaStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), testredis.Start(t).URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func stored(t *testing.T, s *Store) string {
	t.Helper()
	v, _ := s.global.Get(t.Context(), SchemaKey).Result()
	return v
}

// A new Redis is stamped with this binary's schema, and said to be new.
func TestMigrateStampsFreshData(t *testing.T) {
	s := schemaStore(t)
	rep, err := s.Migrate(t.Context())
	if err != nil || !rep.Fresh || rep.To != Schema || len(rep.Steps) != 0 {
		t.Fatalf("Migrate on an empty Redis = %+v, %v; want fresh, stamped %d", rep, err, Schema)
	}
	if v := stored(t, s); v != "1" {
		t.Fatalf("%s = %q, want %q", SchemaKey, v, "1")
	}
}

// Data from before schema numbers (an actor, no stamp) is migrated to
// schema 1, with the step named, and its keys are left as they were.
func TestMigrateStampsUnversionedData(t *testing.T) {
	s := schemaStore(t)
	ctx := t.Context()
	a, err := s.Registry.EnsureActor(ctx, "12D3KooWOld")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Migrate(ctx)
	if err != nil || rep.Fresh || rep.From != 0 || rep.To != Schema || len(rep.Steps) != 1 {
		t.Fatalf("Migrate on unstamped data = %+v, %v; want one step from 0 to %d", rep, err, Schema)
	}
	if v := stored(t, s); v != "1" {
		t.Fatalf("%s = %q after migrating, want 1", SchemaKey, v)
	}
	if got, err := s.Registry.EnsureActor(ctx, "12D3KooWOld"); err != nil || got.ID != a.ID {
		t.Fatalf("the actor after migrating: %+v, %v; want id %d", got, err, a.ID)
	}
	if rep, err := s.Migrate(ctx); err != nil || len(rep.Steps) != 0 || rep.From != Schema {
		t.Fatalf("Migrate again = %+v, %v; want nothing to do", rep, err)
	}
}

// Data stamped by a newer Hyphae is refused, saying both numbers, and
// left untouched.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	s := schemaStore(t)
	if err := s.stamp(t.Context(), Schema+2); err != nil {
		t.Fatal(err)
	}
	_, err := s.Migrate(t.Context())
	var newer *SchemaNewerError
	if !errors.As(err, &newer) || newer.Found != Schema+2 || newer.Known != Schema {
		t.Fatalf("Migrate on schema %d = %v; want a SchemaNewerError", Schema+2, err)
	}
	if v := stored(t, s); v != strconv.Itoa(Schema+2) {
		t.Fatalf("%s = %q after the refusal, want it untouched (%d)", SchemaKey, v, Schema+2)
	}
}

// A stamp that is not a number is an error naming the key, not schema 0.
func TestMigrateRejectsAGarbledStamp(t *testing.T) {
	s := schemaStore(t)
	if err := s.global.Set(t.Context(), SchemaKey, "two", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(t.Context()); err == nil || !strings.Contains(err.Error(), SchemaKey) {
		t.Fatalf("Migrate with %s=two = %v; want an error naming the key", SchemaKey, err)
	}
}

// Steps run in order from the stored schema, each stamped when done, so
// one that fails leaves the stamp at the last step that succeeded and the
// next start runs from there.
func TestMigrateRunsStepsInOrderAndStampsEach(t *testing.T) {
	s := schemaStore(t)
	ctx := t.Context()
	if err := s.stamp(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var ran []int
	fail := true
	step := func(to int) migration {
		return migration{to: to, what: "test", run: func(context.Context, *Store) error {
			if to == 3 && fail {
				return errors.New("boom")
			}
			ran = append(ran, to)
			return nil
		}}
	}
	steps := []migration{step(1), step(2), step(3)}
	if _, err := s.migrate(ctx, steps, 3); err == nil {
		t.Fatal("a failing step: no error")
	}
	if v := stored(t, s); v != "2" || len(ran) != 1 || ran[0] != 2 {
		t.Fatalf("after step 3 failed: stamp %q, ran %v; want stamp 2, ran [2]", v, ran)
	}
	fail = false
	if rep, err := s.migrate(ctx, steps, 3); err != nil || rep.From != 2 || len(rep.Steps) != 1 {
		t.Fatalf("again: %+v, %v; want one step from 2", rep, err)
	}
	if v := stored(t, s); v != "3" || len(ran) != 2 || ran[1] != 3 {
		t.Fatalf("after the retry: stamp %q, ran %v; want stamp 3, ran [2 3]", v, ran)
	}
}
