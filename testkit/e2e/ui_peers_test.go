package e2e

import (
	"os"
	"testing"
)

// The overview's peers picture shows another agent's host name and this
// agent's circuit breaker for it (peer.list's host and breaker).
func TestUIBrowserPeersHostAndBreaker(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	other := startFlowAgent(t, "other", "", "--bootstrap", (&flowAgent{dir: a.dir}).addr(t))
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// Some jobs, so that the overview's screenshot has counts, rates and a failure.
	a.hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo hello")
	_, _, _ = hyTry("job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo bad >&2; exit 3", "--data-dir", a.dir)
	login(t, a, b)
	tile := `document.querySelector('.peer[data-peer="` + other.peer + `"]')`
	b.until("the other agent's tile up", `(refresh(), `+tile+`?.classList.contains('up'))`)
	if got := b.until("its host name", tile+`?.querySelector('[data-host]')?.textContent`); got != host {
		t.Fatalf("the other agent's tile shows host %q, want %q", got, host)
	}
	if got := b.until("its breaker", tile+`?.querySelector('[data-breaker]')?.dataset.breaker`); got != "closed" {
		t.Fatalf("the other agent's breaker shows %q, want closed", got)
	}
	b.until("the failed job among recent failures", `document.querySelector('#overview')?.textContent.includes('exit status 3')`)
	b.shot("overview")
}
