package conformance

import (
	"strings"
	"testing"
	"time"
)

// Seed 000 §1 (a context's executors may submit jobs) across the bus:
// dave, an agent with no role in alice's context 1, sends her a job; she
// refuses it, his message ends error saying why, and nothing of it is
// written in her context.
func TestBusNoRoleIsRefused(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, _ := busAgents(t)
	dave := &bus.dave
	dc := dave.db(t, busCtx)
	key := push(t, dc, busCtx, 581, map[string]any{"dst": alice.peer}, busJob(5081, busCtx, "python", "print(5081)", nil))
	var h map[string]string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if h = dc.HGetAll(t.Context(), key).Val(); h["status"] == "error" {
			break
		}
	}
	if h["status"] != "error" || !strings.Contains(h["error"], "role") {
		t.Fatalf("%s from dave (no role at alice): status %q error %q; want error naming the missing role", key, h["status"], h["error"])
	}
	if k, _ := arrived(alice.db(t, busCtx), time.Second, "job:*", scripted("print(5081)")); k != "" {
		t.Fatalf("dave's refused job was written on alice as %s", k)
	}
}

// Seed 001 Message ("a chat line, an email"): a mail message on msg_out
// without dst is routed as a chat is, to the context's registered runner.
func TestBusMailWithoutDstArrives(t *testing.T) {
	gapped(t)
	t.Parallel()
	alice, bob := busAgents(t)
	key := push(t, bob.db(t, busCtx), busCtx, 591, map[string]any{"message_type": "mail",
		"message": "Subject: 591\n\nhello alice"})
	k, _ := arrived(alice.db(t, busCtx), 30*time.Second, "message:*", func(h map[string]string) bool {
		return h["message"] == "Subject: 591\n\nhello alice" && h["message_type"] == "mail"
	})
	if k == "" {
		t.Fatalf("the mail never reached alice; on bob %s is %v", key, bob.db(t, busCtx).HGetAll(t.Context(), key).Val())
	}
}
