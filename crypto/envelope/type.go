package envelope

import "fmt"

// Type is the kind of message an envelope carries. Presence announcements
// are not envelopes and have no Type.
type Type uint8

// Message types; the numbers are part of the wire format.
const (
	TypeJob    Type = 1
	TypeResult Type = 2
	TypeAck    Type = 3
	TypeStop   Type = 4
	TypeStatus Type = 5
	TypeError  Type = 6
	TypeChat   Type = 7
	TypeMail   Type = 8
)

var typeNames = [...]string{
	TypeJob:    "job",
	TypeResult: "result",
	TypeAck:    "ack",
	TypeStop:   "stop",
	TypeStatus: "status",
	TypeError:  "error",
	TypeChat:   "chat",
	TypeMail:   "mail",
}

// Valid reports whether t is a known type.
func (t Type) Valid() bool {
	return int(t) < len(typeNames) && typeNames[t] != ""
}

// String returns the lowercase name ("job", …), or "type(N)" if unknown.
func (t Type) String() string {
	if !t.Valid() {
		return fmt.Sprintf("type(%d)", uint8(t))
	}
	return typeNames[t]
}

// ParseType is the inverse of String for known types.
func ParseType(s string) (Type, error) {
	for i, name := range typeNames {
		if name != "" && name == s {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("envelope.ParseType %q: %w", s, ErrUnknownType)
}
