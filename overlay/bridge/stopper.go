package bridge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Stopper stops jobs, here or on the agent a job was sent to: the API's
// job.stop and the scheduler's flow cancel share it, so it exists before
// the API's handlers (the node makes it once the bridge is up, for the
// scheduler to start with).
type Stopper struct {
	Store     Store
	Bridge    *Bridge
	Self      *model.Actor // the actor stop messages come from
	PeerID    string       // this agent's
	StopLocal func(ctx context.Context, ctxID uint64, jobKey string) error
}

// NotPeerError: a stop for job Key, which runs on Runner, a name that is
// no peer ID, so there is no agent to ask.
type NotPeerError struct{ Key, Runner string }

func (e *NotPeerError) Error() string {
	return fmt.Sprintf("job %s runs on %q, which is not a peer ID", e.Key, e.Runner)
}

// Stop stops job key of context ctxID on this agent's runner, or asks the
// agent it was sent to (runner, unless its message names one). A sent job
// that no agent took yet (sent to any, none up runs its type) ends here
// and its message is withdrawn.
func (s *Stopper) Stop(ctx context.Context, ctxID uint64, key, runner string) (map[string]string, error) {
	sent := s.sentMessage(ctx, ctxID, key)
	switch {
	case sent != nil && sent.Dst != "":
		runner = sent.Dst // where it went (a runner:<id> record pointed there)
	case sent != nil:
		if _, err := s.Bridge.StopUndelivered(ctx, ctxID, sent, "stopped before any agent took it"); err != nil {
			return nil, err
		}
		return map[string]string{"stopped": key, "where": "outbox", "withdrawn": "true"}, nil
	case runner == "" || runner == s.PeerID:
		if err := s.StopLocal(ctx, ctxID, key); err != nil {
			return nil, err
		}
		return map[string]string{"stopped": key, "where": "local"}, nil
	}
	dst, err := peer.Decode(runner)
	if err != nil {
		return nil, &NotPeerError{Key: key, Runner: runner}
	}
	return s.stopSent(ctx, ctxID, key, dst, sent)
}

// stopSent asks dst, where job key was sent (by message sent, when
// known), to stop it.
func (s *Stopper) stopSent(ctx context.Context, ctxID uint64, key string, dst peer.ID, sent *model.Message) (map[string]string, error) {
	target, withdrawn := ctxID, false
	if sent != nil {
		target = sent.ContextID
		// Not acknowledged yet (the agent may be away): the job ends here
		// at once, and the outbox withdraws its message instead of sending it.
		var err error
		if withdrawn, err = s.Bridge.StopUndelivered(ctx, ctxID, sent, "stopped before "+dst.String()+" acknowledged it"); err != nil {
			return nil, err
		}
	}
	m := &model.Message{CallerID: s.Self.ID, ContextID: target, MessageType: model.MsgTypeStop,
		Dst: dst.String(), Timeout: 300, Extra: model.Hash{model.ExtraOriginJob: key}}
	if err := s.Store.Bus.PushMessage(ctx, ctxID, m, store.MsgOutKey); err != nil {
		return nil, err
	}
	return map[string]string{"stopped": key, "where": dst.String(), "withdrawn": strconv.FormatBool(withdrawn)}, nil
}

// sentMessage is the job message that sent job key away (its target
// context, its status), or nil when it cannot be read.
func (s *Stopper) sentMessage(ctx context.Context, ctxID uint64, key string) *model.Message {
	mk, err := s.Store.Jobs.JobMessageKey(ctx, ctxID, key)
	if err != nil || mk == "" {
		return nil
	}
	m, err := s.Store.Bus.LoadMessageKey(ctx, ctxID, mk)
	if err != nil {
		return nil
	}
	return m
}
