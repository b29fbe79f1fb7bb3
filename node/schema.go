package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/store"
)

// migrateSchema brings the store to this binary's schema before anything
// else reads or writes it (store.Migrate), logging what it did; data from
// a newer Hyphae stops the start here, saying where the data is and what
// to do.
func (n *Node) migrateSchema(ctx context.Context) error {
	rep, err := n.store.Migrate(ctx)
	var newer *store.SchemaNewerError
	if errors.As(err, &newer) {
		where := "data dir " + n.cfg.DataDir
		if n.cfg.Redis.URL != "" {
			where = "the Redis at redis.url (DB 0)"
		}
		return fmt.Errorf("%s was %v: upgrade the binary or use another data dir", where, newer)
	}
	if err != nil {
		return err
	}
	switch {
	case rep.Fresh:
		n.log.Info("store: new data, stamped", "schema", rep.To, "key", store.SchemaKey)
	case len(rep.Steps) > 0:
		n.log.Info("store: data migrated", "from_schema", rep.From, "to_schema", rep.To, "steps", rep.Steps)
	}
	return nil
}
