package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// SetContextIsolation records context id's containment settings (docs/design.md
// §5) on both copies of its record, the context's own (which the runner
// reads) and the DB 0 registry's: isolation "host", "contained" or "",
// network "none", "host" or "". nil keeps a setting as it is; "" removes
// it (HDEL), so the runner's configuration applies again. A bad value is
// refused (model.ErrBadField) and nothing is written.
func (s *Registry) SetContextIsolation(ctx context.Context, id uint64, isolation, network *string) (*model.Context, error) {
	if isolation != nil {
		if err := model.CheckIsolation(*isolation); err != nil {
			return nil, fmt.Errorf("store.SetContextIsolation: %w: %w", model.ErrBadField, err)
		}
	}
	if network != nil {
		if err := model.CheckNetwork(*network); err != nil {
			return nil, fmt.Errorf("store.SetContextIsolation: %w: %w", model.ErrBadField, err)
		}
	}
	c, err := s.updateContext(ctx, id, func(c *model.Context) error {
		iso, net := c.Isolation(), c.Network()
		if isolation != nil {
			iso = *isolation
		}
		if network != nil {
			net = *network
		}
		c.SetIsolation(iso, net)
		return nil
	}, model.ExtraIsolation, model.ExtraNetwork)
	if err != nil {
		return nil, fmt.Errorf("store.SetContextIsolation: %w", err)
	}
	return c, nil
}
