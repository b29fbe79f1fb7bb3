package bridge

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A flow made the seed way dispatches every ready job as a Message on
// msg_out, the jobs this agent runs too (model.ExtraDispatchVia): their
// message names this agent as dst and carries the flow's id. Sent to
// ourselves it would be received as a second job; instead its own job
// goes on this agent's queue and the message ends processed, in one step.

// queueFlowJobHere queues the job of flow message key (taken from
// msg_out) on this agent's runner when it is for this agent; done says
// whether it was (err: the store's trouble, the message stays on
// processing to be taken again).
func (b *Bridge) queueFlowJobHere(ctx context.Context, ctxID uint64, key string, m *model.Message) (bool, error) {
	if m.MessageType != model.MsgTypeJob || len(m.Job) != 1 || m.Extra[model.ExtraMessageFlowID] == "" ||
		m.Dst != b.names.name(b.self) {
		return false, nil
	}
	j := m.Job[0]
	jk := store.JobKey(j.CallerID, j.ID)
	queued, err := b.st.Bus.QueueLocalJob(ctx, ctxID, store.MsgOutProcessingKey, key, jk, j.ScriptType)
	if err != nil {
		return true, err
	}
	b.log.Debug("bridge: flow job queued here", "context", ctxID, "message", key, "job", jk, "queued", queued)
	return true, nil
}
