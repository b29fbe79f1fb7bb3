package cli

import (
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api"
)

// Environment variables that point the CLI at an agent's TCP API instead
// of the socket of --data-dir, as NOMAD_ADDR and NOMAD_TOKEN do for Nomad.
const (
	envAddr      = "HYPHAE_ADDR"       // http://host:9652 (or unix:///path/to/hyphae.sock)
	envToken     = "HYPHAE_TOKEN"      // the agent's api.token
	envTokenFile = "HYPHAE_TOKEN_FILE" // a file holding it; wins over HYPHAE_TOKEN
)

// remote is where the CLI finds the agent when it is not the socket of
// --data-dir: --addr / HYPHAE_ADDR with --token-file / HYPHAE_TOKEN_FILE
// or HYPHAE_TOKEN.
type remote struct {
	addr      string
	tokenFile string
}

func (r *remote) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&r.addr, "addr", os.Getenv(envAddr),
		"the agent's TCP API, e.g. http://127.0.0.1:9652, instead of the socket of --data-dir (env "+envAddr+")")
	f.StringVar(&r.tokenFile, "token-file", os.Getenv(envTokenFile),
		"file holding the agent's api.token, for --addr (env "+envTokenFile+", or the token itself in "+envToken+")")
}

// token is the bearer token for --addr: the token file's content when one
// is named, else $HYPHAE_TOKEN, else "" (the agent answers 401, and the
// error says how to get the token).
func (r *remote) token() (string, error) {
	if r.tokenFile == "" {
		return strings.TrimSpace(os.Getenv(envToken)), nil
	}
	b, err := os.ReadFile(r.tokenFile)
	if err != nil {
		return "", failed("token file: %v (%s or --token-file names a copy of the agent's api.token)", err, envTokenFile)
	}
	return strings.TrimSpace(string(b)), nil
}

// dial makes the client for this command: the TCP API at --addr when set,
// else the socket of --data-dir.
func (g *globals) dial() (*api.Client, error) {
	if g.remote.addr == "" {
		return api.NewUnixClient(g.socket()), nil
	}
	u, err := url.Parse(g.remote.addr)
	if err != nil || u.Host == "" && u.Scheme != "unix" {
		// host:port without a scheme parses oddly; take it as http.
		if u2, err2 := url.Parse("http://" + g.remote.addr); err2 == nil && u2.Port() != "" {
			u = u2
		} else {
			return nil, usage("--addr / %s: %q: want http://host:port (for example http://127.0.0.1:9652)", envAddr, g.remote.addr)
		}
	}
	switch u.Scheme {
	case "unix":
		return api.NewUnixClient(u.Path), nil
	case "http", "https":
		token, err := g.remote.token()
		if err != nil {
			return nil, err
		}
		return api.NewURLClient(u.Scheme+"://"+u.Host, token), nil
	}
	return nil, usage("--addr / %s: %q: want http://host:port, https://host:port or unix:///path/to/hyphae.sock", envAddr, g.remote.addr)
}
