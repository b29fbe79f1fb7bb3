package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// SchemaKey is the DB 0 string that says which layout the data in this
// Redis has (docs/design.md, "Redis layout" and our own keys): a decimal integer. Absent in
// a Redis that holds data: written by a release from before schema
// numbers, whose layout is schema 1's.
const SchemaKey = "hyphae:schema"

// Schema is the layout this binary reads and writes.
const Schema = 1

// migration brings the data from one schema to the next. It must be
// idempotent: a crash between it and the stamp runs it again.
type migration struct {
	to   int
	what string // for the log
	run  func(context.Context, *Store) error
}

// migrations bring schema 0 (no stamp) up to Schema, in order; the last
// one's to is Schema.
var migrations = []migration{
	// The releases before schema numbers wrote exactly schema 1's layout:
	// nothing to change but the stamp.
	{to: 1, what: "stamp the layout of the releases before schema numbers (no change to the data)"},
}

// SchemaNewerError: the data was written by a newer Hyphae, whose layout
// this binary does not know; it must not touch it.
type SchemaNewerError struct {
	Found, Known int
}

func (e *SchemaNewerError) Error() string {
	return fmt.Sprintf("written by a newer Hyphae (schema %d, this binary knows %d)", e.Found, e.Known)
}

// SchemaReport says what Migrate found and did.
type SchemaReport struct {
	From, To int
	Fresh    bool     // DB 0 was empty: a new data dir, stamped
	Steps    []string // the migrations run, in order
}

// Migrate brings the data to Schema before anything else reads or writes
// it: an empty DB 0 is stamped, an older (or unstamped) one migrated step
// by step, each step stamped when done; a newer one is refused with a
// *SchemaNewerError and left untouched.
func (s *Store) Migrate(ctx context.Context) (*SchemaReport, error) {
	return s.migrate(ctx, migrations, Schema)
}

func (s *Store) migrate(ctx context.Context, steps []migration, known int) (*SchemaReport, error) {
	from, err := s.schemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if from > known {
		return nil, fmt.Errorf("store.Migrate: %w", &SchemaNewerError{Found: from, Known: known})
	}
	rep := &SchemaReport{From: from, To: known}
	if from == 0 {
		n, err := s.global.DBSize(ctx).Result()
		if err != nil {
			return nil, fmt.Errorf("store.Migrate: %w", err)
		}
		if rep.Fresh = n == 0; rep.Fresh {
			return rep, wrap("store.Migrate", s.stamp(ctx, known))
		}
	}
	for _, m := range steps {
		if m.to <= from || m.to > known {
			continue
		}
		if m.run != nil {
			if err := m.run(ctx, s); err != nil {
				return rep, fmt.Errorf("store.Migrate: to schema %d (%s): %w", m.to, m.what, err)
			}
		}
		if err := s.stamp(ctx, m.to); err != nil {
			return rep, fmt.Errorf("store.Migrate: %w", err)
		}
		rep.Steps = append(rep.Steps, fmt.Sprintf("schema %d: %s", m.to, m.what))
	}
	return rep, nil
}

// schemaVersion reads SchemaKey: 0 when absent.
func (s *core) schemaVersion(ctx context.Context) (int, error) {
	v, err := s.global.Get(ctx, SchemaKey).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store.SchemaVersion: %w", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("store.SchemaVersion: %s holds %q, not a schema number (a positive integer)", SchemaKey, v)
	}
	return n, nil
}

func (s *core) stamp(ctx context.Context, v int) error {
	return s.global.Set(ctx, SchemaKey, strconv.Itoa(v), 0).Err()
}
