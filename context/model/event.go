package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// An event is a Message of type MsgTypeEvent: its name, id and
// correlation id are Extra fields (below), its payload is the message
// field, a JSON value (message_format_type "json"). It travels and is
// deduped as chat and mail are.
const (
	// ExtraEventName, on an event message: its name, such as order.created.
	ExtraEventName = "event_name"
	// ExtraEventID, on an event message: its id, unique at its publisher
	// and kept across agents; a flow trigger starts one run per event id.
	ExtraEventID = "event_id"
	// ExtraCorrelationID, on an event message: the id that ties it to one
	// saga (an order id, say); on a flow started by an event: that event's.
	ExtraCorrelationID = "correlation_id"
)

// EventFormat is the message_format_type of an event's payload.
const EventFormat = "json"

// MaxEventPayload bounds an event's payload (bytes of JSON).
const MaxEventPayload = 256 << 10

// eventName: dot-separated words of letters, digits, '_' and '-', such as
// order.created or message.chat.
var eventName = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// CheckEventName says why name cannot name an event (nil when it can).
func CheckEventName(name string) error {
	if len(name) > 200 || !eventName.MatchString(name) {
		return fmt.Errorf("event name %q: want dot-separated words of letters, digits, '_' and '-' (such as order.created)", name)
	}
	return nil
}

// ReservedEventPrefixes begin the names of the events only the agent
// itself publishes: message.chat and message.mail (a chat or mail message
// it received, its sender the envelope's signer), flow.finished and
// job.ended (its scheduler's). A trigger may listen for them; nobody may
// publish one: event.publish, a client's msg_out and another agent are
// refused (CheckPublishedEventName).
var ReservedEventPrefixes = []string{"message.", "flow.", "job."}

// CheckPublishedEventName says why name cannot name an event that a
// client or another agent publishes: CheckEventName's reasons, and a
// reserved prefix (compared regardless of case).
func CheckPublishedEventName(name string) error {
	if err := CheckEventName(name); err != nil {
		return err
	}
	lower := strings.ToLower(name)
	for _, p := range ReservedEventPrefixes {
		if strings.HasPrefix(lower, p) {
			return fmt.Errorf("event name %q: the prefixes %s are reserved for the agent's own events "+
				"(received chat and mail, flow.finished, job.ended); publish it under another name", name,
				strings.Join(ReservedEventPrefixes, ", "))
		}
	}
	return nil
}

// CheckEventPayload says why data is no event payload: an event carries one
// JSON value (an object usually), at most MaxEventPayload bytes.
func CheckEventPayload(data string) error {
	if len(data) > MaxEventPayload {
		return fmt.Errorf("event payload: %d bytes, at most %d", len(data), MaxEventPayload)
	}
	if !json.Valid([]byte(data)) {
		var v any
		err := json.Unmarshal([]byte(data), &v)
		return fmt.Errorf("event payload is not JSON: %w", err)
	}
	return nil
}

// Event is an event as triggers and waits see it.
type Event struct {
	Name          string          `json:"name"`
	ID            string          `json:"id"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Data          json.RawMessage `json:"data"`
	From          string          `json:"from,omitempty"` // the sender's peer ID; "" for a local event
	Key           string          `json:"key"`            // its message key in the context DB
}

// EventOf reads the event that message m (stored as key) is, checking its
// name and payload. A chat or mail message is the event message.<type>
// whose payload is {"message": …, "message_format_type": …, "from": …}.
func EventOf(key string, m *Message) (*Event, error) {
	e := &Event{Key: key, From: m.Extra[ExtraFrom], ID: m.Extra[ExtraEventID],
		CorrelationID: m.Extra[ExtraCorrelationID]}
	if e.ID == "" {
		e.ID = key
		if e.From != "" {
			e.ID = e.From + "/" + m.Extra[ExtraOriginRef]
		}
	}
	switch m.MessageType {
	case MsgTypeEvent:
		e.Name, e.Data = m.Extra[ExtraEventName], json.RawMessage(m.Message)
	case MsgTypeChat, MsgTypeMail:
		e.Name = "message." + string(m.MessageType)
		e.Data, _ = json.Marshal(map[string]string{"message": m.Message,
			"message_format_type": m.MessageFormatType, "from": e.From})
	default:
		return nil, fmt.Errorf("message %s: type %q is no event", key, m.MessageType)
	}
	if err := CheckEventName(e.Name); err != nil {
		return nil, err
	}
	if err := CheckEventPayload(string(e.Data)); err != nil {
		return nil, err
	}
	e.Data = compact(e.Data)
	return e, nil
}

func compact(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
