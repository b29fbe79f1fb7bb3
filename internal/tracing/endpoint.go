package tracing

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Endpoint is the OTLP endpoint to export to: configured, else the
// standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
// OTEL_EXPORTER_OTLP_ENDPOINT; "" (export off) when none is set.
func Endpoint(configured string) string {
	for _, v := range []string{configured, os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// endpointURL is the URL spans are posted to: e as given when it has a
// path, else e's /v1/traces as OTLP/HTTP says of a base endpoint; a bare
// host:port means http.
func endpointURL(e string) (string, error) {
	if !strings.Contains(e, "://") {
		e = "http://" + e
	}
	u, err := url.Parse(e)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("OTLP endpoint %q: want http(s)://host:port[/path] or host:port", e)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}
