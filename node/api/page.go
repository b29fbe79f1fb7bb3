package api

import "net/http"

// Page is a web page the server shows at GET / (without a WebSocket
// upgrade; an upgrade and POST stay JSON-RPC): the dashboard of node/ui.
// Its sessions stand in for the bearer token on TCP.
type Page interface {
	// ServeHTTP answers GET / with the page.
	http.Handler
	// Session reports whether r carries a valid session of the page for
	// what r does (the page judges the cookie, the CSRF header and the
	// origin).
	Session(r *http.Request) bool
}

// SetPage shows p at GET /; call it before Listen*.
func (s *Server) SetPage(p Page) { s.page = p }

// OverTCP reports whether r came over the TCP listener (where the token or
// a page session is needed) rather than the unix socket.
func OverTCP(r *http.Request) bool { return r.Context().Value(tcpKey{}) != nil }

// servePage answers a plain GET / with the page; false when there is none
// (the caller answers 426) or r asks for something else.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) bool {
	if s.page == nil || r.URL.Path != "/" || isUpgrade(r) {
		return false
	}
	s.page.ServeHTTP(w, r)
	return true
}

// pageOr426 answers a GET of a JSON-RPC path without an upgrade: the page
// at /, else 426.
func (s *Server) pageOr426(w http.ResponseWriter, r *http.Request) {
	if !s.servePage(w, r) {
		http.Error(w, "426 upgrade required: JSON-RPC here is POST, or GET with a WebSocket upgrade", http.StatusUpgradeRequired)
	}
}

// sessionGuard wraps the TCP handler: the page itself needs no token (it
// holds no data; the login does), and a request carrying a valid page
// session instead of the token passes the token guard as if it carried
// the token, so it reaches the same methods with the same checks. A
// WebSocket upgrade never rides on a session: browsers send cookies with
// cross-site upgrades, and the upgrade takes no CSRF header.
func (s *Server) sessionGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.page == nil:
		case r.Method == http.MethodGet && s.servePage(w, r):
			return
		case r.Header.Get("Authorization") == "" && s.token != "" && !isUpgrade(r) && s.page.Session(r):
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+s.token)
		}
		next.ServeHTTP(w, r)
	})
}
