package ui

import (
	"embed"
	"encoding/json"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
)

//go:embed assets
var assets embed.FS

// CSRFHeader carries the session's CSRF value on every POST.
const CSRFHeader = "X-Hyphae-CSRF"

// securityHeaders keep the page to its own scripts and out of frames.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// ServeHTTP answers GET / with the page (api.Page).
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	securityHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

func assetHandler() http.Handler {
	sub, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix("/ui/assets/", http.FileServer(http.FS(sub)))
	_ = mime.AddExtensionType(".js", "text/javascript; charset=utf-8")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// Session judges r's session for api.Page: a live session cookie; no
// other site's origin; and a POST with a JSON body and the session's CSRF
// value, or a GET of an event stream (EventSource sends no header; the
// streams only read) or of a job's file (a download link).
func (d *Dashboard) Session(r *http.Request) bool {
	x := d.sessions.lookup(cookieValue(r))
	if x == nil || !sameOrigin(r) {
		return false
	}
	switch r.Method {
	case http.MethodGet:
		// Event streams, and a job's files (a download only reads).
		return strings.HasPrefix(r.URL.Path, "/events/") || r.URL.Path == "/ui/events" || strings.HasPrefix(r.URL.Path, "/files/")
	case http.MethodPost:
		return isJSON(r) && x.csrfOK(r.Header.Get(CSRFHeader))
	}
	return false
}

// sameOrigin refuses a request a browser marks as from another origin.
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return false
	}
	site := r.Header.Get("Sec-Fetch-Site")
	return site == "" || site == "same-origin" || site == "none"
}

func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// cookieName is per port: cookies do not tell ports apart, and two agents
// on one host must not log each other's browsers out.
func cookieName(r *http.Request) string {
	if _, port, err := net.SplitHostPort(r.Host); err == nil {
		return "hyphae_session_" + port
	}
	return "hyphae_session"
}

func cookieValue(r *http.Request) string {
	c, err := r.Cookie(cookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}

// serveLogin trades {"token": …} for a session cookie and answers the
// CSRF value. A JSON body is required: a form of another site cannot send
// one without a CORS preflight, which this endpoint never grants.
func (d *Dashboard) serveLogin(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Token string `json:"token"`
	}
	if !isJSON(r) || !sameOrigin(r) || json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&p) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want a same-origin JSON body {\"token\": …}"})
		return
	}
	id, csrf, ok := d.sessions.exchange(p.Token)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "login token unknown, used or expired: " +
			"run `hyphae ui --url` for a new one"})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Expires: time.Now().Add(SessionTTL)})
	writeJSON(w, http.StatusOK, map[string]string{"auth": "session", "csrf": csrf})
}

// serveSession tells the page how it is logged in: "session" (with the
// CSRF value; another origin cannot read it), "socket" (the unix socket
// needs none) or, with 401, "none".
func (d *Dashboard) serveSession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !api.OverTCP(r) {
		writeJSON(w, http.StatusOK, map[string]string{"auth": "socket"})
		return
	}
	x := d.sessions.lookup(cookieValue(r))
	if x == nil || !sameOrigin(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"auth": "none"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"auth": "session", "csrf": x.csrf})
}

func (d *Dashboard) serveLogout(w http.ResponseWriter, r *http.Request) {
	if api.OverTCP(r) && !d.Session(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "not logged in"})
		return
	}
	d.sessions.end(cookieValue(r))
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	writeJSON(w, http.StatusOK, map[string]string{"auth": "none"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
