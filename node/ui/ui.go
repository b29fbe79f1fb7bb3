// Package ui is the agent's web dashboard: a page of plain HTML, CSS and
// JavaScript embedded in the binary (assets/), served at GET / on the API
// listeners, with a login that trades a one-time token (`hyphae ui --url`,
// the ui.login_token method) for an HttpOnly, SameSite=Strict session
// cookie.
//
// The page reads and acts only through the JSON-RPC methods the CLI uses
// (POST /rpc) and the event streams (/events/job, /events/flow, and
// /ui/events, which says when the store changed), so it passes the same
// checks. On TCP a session stands in for the bearer token (node/api's
// Page): every POST must carry the session's CSRF value in X-Hyphae-CSRF
// with a JSON body, and a session never opens a WebSocket. On the unix
// socket, whose file permissions are the guard, no login is needed.
package ui

import (
	"log/slog"
	"net/http"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/control"
)

// Dashboard serves the page, its login and its change stream.
type Dashboard struct {
	h        *control.Handlers
	sessions *sessions
	log      *slog.Logger
}

// Mount adds the dashboard to srv and its methods (ui.login_token, …) to
// the table h filled; call it after h.Register and before srv listens.
func Mount(srv *api.Server, h *control.Handlers, log *slog.Logger) *Dashboard {
	d := &Dashboard{h: h, sessions: newSessions(), log: log}
	h.RegisterUI(d.sessions)
	srv.SetPage(d)
	srv.Handle("GET /ui/assets/", assetHandler(), true)
	srv.Handle("POST /ui/login", http.HandlerFunc(d.serveLogin), true)
	srv.Handle("GET /ui/session", http.HandlerFunc(d.serveSession), true)
	srv.Handle("POST /ui/logout", http.HandlerFunc(d.serveLogout), true)
	srv.Handle("GET /ui/events", http.HandlerFunc(d.serveChanges), false)
	return d
}
