package jobfiles

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
)

// Lookup is what the Authorizer reads of the store: the job a request
// names, the message that sent it, and the roles of its context.
type Lookup interface {
	LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
	LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error)
	Authorize(ctx context.Context, id uint64, pubkey string, role model.Role) (*model.Actor, error)
	PeerByName(ctx context.Context, name string) (string, error)
}
