package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/proto"
)

// exporter posts ended spans to an OTLP/HTTP endpoint as protobuf. It is
// not the SDK's otlptracehttp: that imports the OTLP collector package,
// whose gRPC stubs bring in grpc and golang.org/x/net/trace, and the
// latter's html/template defeats the linker's dead-code elimination (the
// release binary grew by 14 MB; e2e's TestBinaryDeadCodeEliminated). The
// body is a TracesData, the same message on the wire as the collector's
// ExportTraceServiceRequest (one field: resource_spans = 1).
type exporter struct {
	url    string
	client *http.Client
}

// exportTimeout bounds one POST of a batch.
const exportTimeout = 10 * time.Second

func newExporter(url string) *exporter {
	return &exporter{url: url, client: &http.Client{Timeout: exportTimeout}}
}

// ExportSpans sends one batch; a failed batch is dropped (the SDK's
// batcher reports the error), as a collector that is down must never
// hold up jobs.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := proto.Marshal(tracesData(spans))
	if err != nil {
		return fmt.Errorf("tracing: encode spans: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("tracing: export: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("tracing: export: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("tracing: export to %s: %s", e.url, resp.Status)
	}
	return nil
}

func (e *exporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}
