package overlay

import (
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
)

// newcomerAnswers coalesces the answers to newcomers: however many peers
// come up at once, this agent announces itself at most once per
// newcomerAgain. Answering each newcomer on its own made presence traffic
// grow with the square of the agents while many started together, or while
// peers flapped between stale and up under load.
type newcomerAnswers struct {
	mu   sync.Mutex
	busy bool // guarded by mu; the follow-up loop runs
	due  int  // guarded by mu; announcements still owed, one per newcomerAgain
}

// answerNewcomer announces us to a peer newly up. It may have joined the
// presence topic after our last record went by (through a rendezvous it was
// not yet connected to) and would otherwise learn of us only at our next
// interval. The first answer may pass the rendezvous before it has the
// newcomer in its mesh (it grafts it at its next heartbeat, and forwards
// only to mesh peers): the second one, a heartbeat later, gets through.
// A newcomer that comes while answers are going out is owed the next two.
func (o *Overlay) answerNewcomer() {
	a := &o.answers
	a.mu.Lock()
	if a.busy {
		a.due = 2
		a.mu.Unlock()
		return
	}
	a.busy, a.due = true, 1
	a.mu.Unlock()
	o.AnnounceNow()
	o.spawn(func() {
		for {
			ok := o.sleep(newcomerAgain)
			if ok {
				o.AnnounceNow()
			}
			a.mu.Lock()
			a.due--
			if !ok || a.due <= 0 {
				a.busy, a.due = false, 0
				a.mu.Unlock()
				return
			}
			a.mu.Unlock()
		}
	})
}

// newcomerAgain is when a newcomer gets our second record: just past one
// gossipsub heartbeat.
var newcomerAgain = pubsub.GossipSubHeartbeatInterval + 100*time.Millisecond
