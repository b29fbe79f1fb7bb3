package api

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The TCP listener answers only requests addressed to this agent by a
// name no web page can take over: DNS rebinding points a name the page's
// author owns at 127.0.0.1, and the visitor's browser then reads the open
// endpoints (/info, /metrics) under that name's origin. So a request's Host
// must be
//
//   - localhost or a name under .localhost (RFC 6761: never sent to DNS),
//   - a loopback address (127.0.0.0/8, [::1]),
//   - the address the connection came in on, or the host the listener was
//     given (an address, or a name when api.listen has one), or
//   - a name allowed by AllowHosts,
//
// with or without a port. A request without Host (HTTP/1.0) passes: a
// browser always sends one. The unix socket is not guarded: no browser
// reaches it.

// AllowHosts lets the TCP listener also answer requests for these host
// names or addresses (no port; case does not matter), for example the
// name a reverse proxy forwards in Host. Call it before ListenTCP.
func (s *Server) AllowHosts(hosts ...string) {
	for _, h := range hosts {
		if h = normalHost(h); h != "" {
			s.allowedHosts = append(s.allowedHosts, h)
		}
	}
}

// hostGuard wraps the TCP handler: a request whose Host is not one of
// those above is refused with 403 before anything else sees it (the
// dashboard, the token check, WebSocket upgrades, every path).
func (s *Server) hostGuard(listenHost string, next http.Handler) http.Handler {
	allowed := append([]string{}, s.allowedHosts...)
	if h := normalHost(listenHost); h != "" {
		allowed = append(allowed, h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r, allowed) {
			http.Error(w, fmt.Sprintf("403 forbidden: Host %.80q is not this agent's: the TCP API answers only "+
				"localhost, *.localhost, 127.0.0.0/8, [::1] or its own listen address (a guard against DNS rebinding)",
				r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether r's Host is one the TCP listener answers.
func hostAllowed(r *http.Request, allowed []string) bool {
	if r.Host == "" {
		return true
	}
	h := normalHost(r.Host)
	if h == "" {
		return false
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	for _, a := range allowed {
		if h == a {
			return true
		}
	}
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return true
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(la.String()); err == nil && ap.Addr().Unmap().WithZone("") == ip.WithZone("") {
			return true
		}
	}
	return false
}

// normalHost is host without its port, brackets and one trailing dot,
// lower case; "" when nothing is left.
func normalHost(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "0.0.0.0" || host == "::" {
		return "" // a wildcard listen address is no name for a request
	}
	return host
}
