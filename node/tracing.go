package node

import (
	"context"

	"github.com/hyphae-run/hyphae/internal/tracing"
)

// startTracing starts span export when an OTLP endpoint is configured
// (trace.otlp_endpoint, else OTEL_EXPORTER_OTLP_ENDPOINT); without one
// n.tracer stays nil and the parts make no spans at all.
func (n *Node) startTracing(ctx context.Context) error {
	t, err := tracing.Start(ctx, tracing.Config{Endpoint: tracing.Endpoint(n.cfg.Trace.OTLPEndpoint),
		Peer: n.id.PeerID().String(), Log: n.log.With("part", "tracing")})
	if err != nil || t == nil {
		return err
	}
	n.log.Info("tracing: exporting spans over OTLP", "endpoint", tracing.Endpoint(n.cfg.Trace.OTLPEndpoint))
	n.tracer = t
	n.parts.tracer = part{"tracing", t.Shutdown}
	return nil
}
