package bridge

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// eventFrom is the payload of an event a stranger sends as an agent's
// bridge would (sealed as mail, message_type event), with a "from" of
// its own choosing in the message hash.
func eventFrom(ref, name, data, from string) *payload {
	return &payload{Ref: ref, Message: model.Hash{"message_type": string(model.MsgTypeEvent),
		model.ExtraEventName: name, "message": data, "message_format_type": model.EventFormat,
		model.ExtraEventID: ref, model.ExtraFrom: from}}
}

// An event of a reserved name (message.*, flow.*, job.*: the agent's own)
// from another agent, even an executor of the context, is answered with an
// error naming the reserved prefixes, counted as a refusal, and stores
// nothing: no message, nothing on msg_in or the events list. An event of
// another name is stored with from the signer, whatever its hash says.
func TestRemoteReservedEventRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	x := newStranger(t, n)
	b.grant(t, 1, x.name(), model.RoleExecutor)
	before := b.keys(t, 1)

	for i, name := range []string{"job.x", "message.mail", "flow.finished", "Message.chat"} {
		p := eventFrom("1/message:1:"+u64(uint64(10+i)), name, `{"from": "someone"}`, "someone")
		x.send(t, b.peer(), envelope.TypeMail, 1, p)
		r := x.next(t, envelope.TypeError)
		if r.p.AckOf != p.Ref || !strings.Contains(r.p.Error, "reserved") || !strings.Contains(r.p.Error, "message., flow., job.") {
			t.Fatalf("%s: reply %+v; want an error for %s naming the reserved prefixes", name, r.p, p.Ref)
		}
	}
	if got := b.rejected(reasonReservedEvent); got != 4 {
		t.Errorf("%s refusals %d, want 4", reasonReservedEvent, got)
	}
	if after := b.keys(t, 1); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Fatalf("the refused events wrote keys: before %v, after %v", before, after)
	}

	good := eventFrom("1/message:1:20", "order.created", `{"order_id": "o-1"}`, "someone")
	x.send(t, b.peer(), envelope.TypeMail, 1, good)
	if r := x.next(t, envelope.TypeAck); r.p.AckOf != good.Ref {
		t.Fatalf("reply %+v; want the ack of %s", r.p, good.Ref)
	}
	if n := b.llen(t, 1, store.EventsKey); n != 1 {
		t.Fatalf("events list holds %d, want the one event", n)
	}
	key, err := b.db(t, 1).LIndex(t.Context(), store.EventsKey, 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	if m := b.msg(t, 1, key); m.Extra[model.ExtraFrom] != x.name() || m.Extra[model.ExtraEventName] != "order.created" {
		t.Fatalf("the stored event %s says from %q (name %q); want the signer %s", key,
			m.Extra[model.ExtraFrom], m.Extra[model.ExtraEventName], x.name())
	}
}
