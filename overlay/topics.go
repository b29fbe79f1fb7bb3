package overlay

import (
	"fmt"
	"regexp"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Topic names (versioned).
const (
	TopicPrefix   = "hyphae/1/"
	PresenceTopic = TopicPrefix + "presence"
	RelayTopic    = TopicPrefix + "relay"
	inboxPrefix   = TopicPrefix + "inbox/"
)

// topicPattern is every topic a peer may announce to us.
var topicPattern = regexp.MustCompile(`^hyphae/1/(presence|relay|inbox/[1-9A-HJ-NP-Za-km-z]{32,128})$`)

// InboxTopic is the inbox topic of peer p.
func InboxTopic(p peer.ID) string { return inboxPrefix + p.String() }

// joinTopics joins presence, relay and our own inbox and registers their
// validators, inline: they run in gossipsub's validation workers, right
// after its signature check, rather than in a goroutine of their own each
// (one hand-off less per message). So they must not block for long; see
// InboxValidator.
func (o *Overlay) joinTopics() error {
	vals := []struct {
		name string
		val  pubsub.ValidatorEx
		dst  **pubsub.Topic
	}{
		{PresenceTopic, o.validatePresence, &o.presence},
		{RelayTopic, o.validateRelay, &o.relay},
		{InboxTopic(o.id), o.validateInbox, &o.inbox},
	}
	for _, v := range vals {
		if err := o.ps.RegisterTopicValidator(v.name, v.val, pubsub.WithValidatorInline(true)); err != nil {
			return fmt.Errorf("validator for %s: %w", v.name, err)
		}
		t, err := o.ps.Join(v.name)
		if err != nil {
			return fmt.Errorf("join %s: %w", v.name, err)
		}
		*v.dst = t
	}
	return nil
}

// outTopic returns the joined inbox topic of peer p (joined once, kept).
func (o *Overlay) outTopic(p peer.ID) (*pubsub.Topic, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, ErrClosed
	}
	if t, ok := o.outTopics[p]; ok {
		return t, nil
	}
	t, err := o.ps.Join(InboxTopic(p))
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", InboxTopic(p), err)
	}
	o.outTopics[p] = t
	return t, nil
}

// isTopicPeer reports whether p is a known subscriber of t.
func isTopicPeer(t *pubsub.Topic, p peer.ID) bool {
	for _, q := range t.ListPeers() {
		if q == p {
			return true
		}
	}
	return false
}
