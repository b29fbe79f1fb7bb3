package config

// Trace configures span export (internal/tracing). Trace ids are given
// and kept whatever it says; only the export is optional.
type Trace struct {
	// OTLPEndpoint: where spans go over OTLP/HTTP, e.g.
	// http://127.0.0.1:4318 (its /v1/traces) or a full URL. Empty: the
	// standard OTEL_EXPORTER_OTLP_ENDPOINT, else no export (the default,
	// which costs nothing: no exporter, no spans).
	OTLPEndpoint string `yaml:"otlp_endpoint"`
}
