package overlay

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Queue sizes raised from gossipsub's defaults of 32, which drop messages
// under bursts (FACTS.md pitfall 3).
const (
	outboundQueueSize  = 1024
	validateQueueSize  = 1024
	subscriptionBuffer = 1024
	maxTopicsPerRPC    = 64
	scoreInspectPeriod = time.Second
)

// newPubSub builds the gossipsub router: strict signatures by the host key
// (the actor key), flood publishing, content-hash message IDs, topics
// limited to hyphae/1/…, and peer scoring that punishes invalid messages
// and, through appScore, messages refused after validation (see conduct).
func newPubSub(ctx context.Context, h host.Host, cfg Config, ownInbox string, appScore func(peer.ID) float64,
	onScores func(map[peer.ID]float64), log *slog.Logger) (*pubsub.PubSub, error) {
	filter := pubsub.WrapLimitSubscriptionFilter(pubsub.NewRegexpSubscriptionFilter(topicPattern), maxTopicsPerRPC)
	opts := []pubsub.Option{
		pubsub.WithMessageSignaturePolicy(pubsub.StrictSign),
		pubsub.WithFloodPublish(true),
		pubsub.WithPeerOutboundQueueSize(outboundQueueSize),
		pubsub.WithValidateQueueSize(validateQueueSize),
		pubsub.WithMaxMessageSize(cfg.MaxMessageSize),
		pubsub.WithMessageIdFn(contentID),
		pubsub.WithSubscriptionFilter(filter),
		pubsub.WithPeerScore(scoreParams(ownInbox, appScore), scoreThresholds()),
		pubsub.WithPeerScoreInspect(pubsub.PeerScoreInspectFn(onScores), scoreInspectPeriod),
		pubsub.WithLogger(log.With("component", "pubsub")),
	}
	if cfg.PubsubTracer != nil {
		opts = append(opts, pubsub.WithRawTracer(cfg.PubsubTracer))
	}
	ps, err := pubsub.NewGossipSub(ctx, h, opts...)
	if err != nil {
		return nil, fmt.Errorf("gossipsub: %w", err)
	}
	return ps, nil
}

// contentID is the message ID: SHA-256 of the data, so identical bytes are
// processed once whatever path they take.
func contentID(m *pb.Message) string {
	sum := sha256.Sum256(m.Data)
	return string(sum[:])
}

// invalidMessageWeight is the score of one invalid message (squared per
// topic: 1 → -100, 2 → -400, 3 → -900 …).
const invalidMessageWeight = -100

// scoreParams scores the topics we receive on, plus appScore (a peer's
// conduct). IP colocation is not penalised: several agents behind one NAT
// address are normal.
func scoreParams(ownInbox string, appScore func(peer.ID) float64) *pubsub.PeerScoreParams {
	topic := func() *pubsub.TopicScoreParams {
		return &pubsub.TopicScoreParams{
			SkipAtomicValidation:           true,
			TopicWeight:                    1,
			TimeInMeshQuantum:              time.Second, // unused (weight 0) but divides
			InvalidMessageDeliveriesWeight: invalidMessageWeight,
			InvalidMessageDeliveriesDecay:  pubsub.ScoreParameterDecay(time.Hour),
		}
	}
	return &pubsub.PeerScoreParams{
		SkipAtomicValidation: true,
		Topics: map[string]*pubsub.TopicScoreParams{
			PresenceTopic: topic(), RelayTopic: topic(), ownInbox: topic(),
		},
		AppSpecificScore:          appScore,
		AppSpecificWeight:         1,
		IPColocationFactorWeight:  0,
		BehaviourPenaltyWeight:    -10,
		BehaviourPenaltyThreshold: 6,
		BehaviourPenaltyDecay:     pubsub.ScoreParameterDecay(10 * time.Minute),
		DecayInterval:             pubsub.DefaultDecayInterval,
		DecayToZero:               pubsub.DefaultDecayToZero,
		RetainScore:               time.Hour,
	}
}

// scoreThresholds: a peer stops getting gossip after ~3 invalid messages,
// is not published to after ~4 and is ignored altogether after ~5.
func scoreThresholds() *pubsub.PeerScoreThresholds {
	return &pubsub.PeerScoreThresholds{
		GossipThreshold:             -500,
		PublishThreshold:            -1000,
		GraylistThreshold:           -2500,
		AcceptPXThreshold:           100,
		OpportunisticGraftThreshold: 1,
	}
}

// setScores is the peer score inspector.
func (o *Overlay) setScores(s map[peer.ID]float64) {
	o.mu.Lock()
	o.scores = s
	o.mu.Unlock()
}

// PeerScore is p's last gossipsub score as seen by this agent (refreshed
// every second); ok is false when p has no score yet.
func (o *Overlay) PeerScore(p peer.ID) (score float64, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	score, ok = o.scores[p]
	return score, ok
}
