package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config says where spans go.
type Config struct {
	// Endpoint is the OTLP/HTTP endpoint (see Endpoint); "" turns export
	// off.
	Endpoint string
	// Service is the resource's service.name; default "hyphae".
	Service string
	// Peer is this agent's peer ID, a resource attribute (hyphae.peer_id)
	// that tells apart the agents a trace crosses.
	Peer string
	// Log, when set, gets the SDK's errors (a collector that is down) as
	// warnings, instead of the standard logger. The SDK's error handler
	// is process-wide: the last agent started in a process has it.
	Log *slog.Logger
}

// Tracer exports spans. A nil *Tracer is export off: its methods do
// nothing and allocate nothing.
type Tracer struct {
	provider *sdktrace.TracerProvider
	tr       trace.Tracer
}

// batchTimeout bounds how long an ended span waits before it is sent:
// short, so a trace shows up while one still looks at the job.
const batchTimeout = time.Second

// Start returns a Tracer exporting to cfg.Endpoint, or nil (off) when it
// is "". The exporter connects lazily: an endpoint that is down costs
// dropped spans, never a failed start.
func Start(ctx context.Context, cfg Config) (*Tracer, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	url, err := endpointURL(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("tracing.Start: %w", err)
	}
	exp := newExporter(url)
	if cfg.Log != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { cfg.Log.Warn("tracing: export", "err", err) }))
	}
	svc := cfg.Service
	if svc == "" {
		svc = "hyphae"
	}
	res := resource.NewSchemaless(attribute.String("service.name", svc), attribute.String("hyphae.peer_id", cfg.Peer))
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(batchTimeout)),
		sdktrace.WithResource(res), sdktrace.WithIDGenerator(idGen{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return &Tracer{provider: p, tr: p.Tracer("github.com/hyphae-run/hyphae")}, nil
}

// Shutdown sends the spans not sent yet and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing.Shutdown: %w", err)
	}
	return nil
}

// Flush sends the ended spans now.
func (t *Tracer) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}
