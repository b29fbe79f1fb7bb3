package wire

import "encoding/json"

// EventPublishParams are event.publish's.
type EventPublishParams struct {
	Context       uint64          `json:"context"`                   // local: its context; with to: the target context there
	Name          string          `json:"name"`                      // such as order.created
	Data          json.RawMessage `json:"data,omitempty"`            // the payload: one JSON value (null when none)
	CorrelationID string          `json:"correlation_id,omitempty"`  // ties it to one saga (an order id)
	ID            string          `json:"id,omitempty"`              // its id (default: a new random one); one run per trigger and id
	Idempotency   string          `json:"idempotency_key,omitempty"` // the same as id (docs/idempotency.md); give one or the other
	To            string          `json:"to,omitempty"`              // a peer ID: send it there; empty: this agent's own
	From          uint64          `json:"from_context,omitempty"`    // with to: the local context that records it
}

// EventView is an event as event.* show it.
type EventView struct {
	Key           string          `json:"key"` // its message key
	Context       uint64          `json:"context"`
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Data          json.RawMessage `json:"data"`
	From          string          `json:"from,omitempty"` // the sender's peer ID, for an event received
	To            string          `json:"to,omitempty"`   // the recipient, for an event sent
	Status        string          `json:"status,omitempty"`
}

// TriggerAddParams are event.trigger.add's: a flow file with `on:`.
type TriggerAddParams struct {
	FileContent string `json:"file_content"`
	FileName    string `json:"file_name,omitempty"`
	BaseDir     string `json:"base_dir,omitempty"`
	Context     uint64 `json:"context,omitempty"`
}

// TriggerRef names a trigger: its flow's name in a context.
type TriggerRef struct {
	Context uint64 `json:"context"`
	Name    string `json:"name"`
}

// TriggerView is a trigger as event.trigger.* show it.
type TriggerView struct {
	Name        string            `json:"name"`
	Context     uint64            `json:"context"`
	Event       string            `json:"event"`
	Where       map[string]string `json:"where,omitempty"`
	Correlation string            `json:"correlation,omitempty"`
	CreatedAt   int64             `json:"created_at"`
}
