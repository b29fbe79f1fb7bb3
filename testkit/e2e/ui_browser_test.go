package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/need"
)

// The dashboard in a real browser: headless Chromium (Debian's chromium
// package) driven by chromedp against a `hyphae run` process. With
// HYPHAE_UI_SHOTS=1 each view is saved to docs/screenshots/<view>.png.

// chromium finds a Chromium or Chrome binary, "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func newBrowser(t *testing.T) *browser {
	bin := chromium()
	if bin == "" {
		need.Missing(t, "no chromium binary on PATH (apt-get install -y chromium): the dashboard's browser tests need one")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("force-device-scale-factor", "1"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	// Start the browser under the tab's own context: a browser started
	// under a shorter one (an action's timeout) ends with it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return &browser{t: t, ctx: ctx}
}

// fresh opens a tab in a new browser context: no cookies of b's.
func (b *browser) fresh() *browser {
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	b.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		b.t.Fatalf("new browser context: %v", err)
	}
	return &browser{t: b.t, ctx: ctx}
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
}

// until polls the JavaScript expression until it is truthy and returns
// its value as a string.
func (b *browser) until(what, expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Poll[any](expr, chromedp.WithPollingTimeout(30*time.Second),
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		b.t.Fatalf("browser: waiting for %s (%s): %v", what, expr, err)
	}
	return fmt.Sprint(v)
}

func (b *browser) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		b.t.Fatalf("browser: %s: %v", expr, err)
	}
	return fmt.Sprint(v)
}

// visit moves the page to hash (no reload: the page routes by hash) and
// waits for the view's element.
func (b *browser) visit(hash, ready string) {
	b.t.Helper()
	b.eval("location.hash = " + strconv.Quote(hash))
	b.until(hash, ready)
}

// click clicks the element sel once it is there. The click is the
// element's own (HTMLElement.click, in one evaluation): the live views
// redraw themselves when the store changes, so a node found by one
// DevTools call may be gone by the next.
func (b *browser) click(what, sel string) {
	b.t.Helper()
	q := "document.querySelector(" + strconv.Quote(sel) + ")"
	b.until(what, "!!"+q)
	b.eval(q + ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
}

// confirm clicks the destructive button sel and then Yes on the question
// it turns into (the dashboard asks before it stops, cancels, deletes,
// removes or revokes).
func (b *browser) confirm(what, sel string) {
	b.t.Helper()
	b.click(what, sel)
	b.click(what+": Yes", `.confirm .confirm-yes`)
}

// shot saves the page as docs/screenshots/name.png when HYPHAE_UI_SHOTS=1.
func (b *browser) shot(name string) {
	b.t.Helper()
	if os.Getenv("HYPHAE_UI_SHOTS") != "1" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// uiAgent is a `hyphae run` with its TCP API on a free port and context 1.
type uiAgent struct {
	dir  string
	info wire.InfoView
}

func startUIAgent(t *testing.T) *uiAgent {
	dir := newDataDir(t)
	startRun(t, dir, nil, "--api", "127.0.0.1:0", "--listen", "/ip4/127.0.0.1/tcp/0", "--no-mdns")
	a := &uiAgent{dir: dir}
	a.call(t, "node.info", nil, &a.info)
	a.hy(t, "context", "create", "--id", "1")
	return a
}

// call asks the agent over its socket (checks that do not depend on the
// CLI's output).
func (a *uiAgent) call(t *testing.T, method string, params, out any) {
	t.Helper()
	if err := api.NewUnixClient(node.PathsFor(a.dir).Socket).Call(context.Background(), method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (a *uiAgent) hy(t *testing.T, args ...string) string {
	t.Helper()
	return hy(t, append(args, "--data-dir", a.dir)...)
}

// submit runs script in context 1 without waiting and returns its key.
func (a *uiAgent) submit(t *testing.T, script string, env ...string) string {
	t.Helper()
	args := []string{"job", "run", "--context", "1", "--type", "sh", "--json", "--script", script}
	for _, e := range env {
		args = append(args, "--env", e)
	}
	var j jobOut
	decode(t, a.hy(t, args...), &j)
	return j.Key
}

func (a *uiAgent) flowFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const diamondFlow = `name: diamond
context: 1
jobs:
  fetch: {type: sh, script: 'echo "items=3" >> "$HYPHAE_RESULT"'}
  count-words: {type: sh, needs: fetch, script: 'echo words'}
  count-lines: {type: sh, needs: fetch, script: 'echo lines'}
  report: {type: sh, needs: [count-words, count-lines], script: 'echo report'}
`

// login opens the URL `hyphae ui --url` prints and waits for the peer ID.
func login(t *testing.T, a *uiAgent, b *browser) string {
	url := strings.TrimSpace(a.hy(t, "ui", "--url"))
	if !strings.HasPrefix(url, "http://"+a.info.API+"/#login=") {
		t.Fatalf("hyphae ui --url printed %q; want the API %s with a login token", url, a.info.API)
	}
	b.do("open the login URL", chromedp.Navigate(url))
	if got := b.until("the peer ID on the overview", `document.querySelector('#peer-id')?.textContent`); got != a.info.PeerID {
		t.Fatalf("overview shows peer ID %q, want %q", got, a.info.PeerID)
	}
	return url
}

func TestUIBrowserLoginOverviewAndLiveJobs(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	a.hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo hello")
	_, _, _ = hyTry("job", "run", "--context", "1", "--type", "sh", "--wait", "--script", "echo bad >&2; exit 3", "--data-dir", a.dir)
	a.hy(t, "flow", "run", a.flowFile(t, diamondFlow), "--wait")
	url := login(t, a, b)
	b.until("the failed job among recent failures", `document.querySelector('#overview')?.textContent.includes('exit status 3')`)
	b.shot("overview")

	// The login URL worked once: opened again in a browser without the
	// session, it is refused.
	other := b.fresh()
	other.do("open the login URL again", chromedp.Navigate(url))
	other.until("the refusal of a used token", `document.querySelector('#login')?.textContent.includes('used or expired')`)
	b.visit("#/jobs", `document.querySelector('#jobs-range')?.textContent`)
	b.shot("jobs")

	// A job submitted from the CLI appears without a reload.
	b.eval(`window.notReloaded = true`)
	start := time.Now()
	key := a.submit(t, "echo live")
	b.until("job "+key+" in the list", `!!document.querySelector('tr[data-key="`+key+`"]')`)
	t.Logf("job %s appeared in the browser %v after `hyphae job run` returned", key, time.Since(start).Round(time.Millisecond))
	if b.eval(`window.notReloaded === true`) != "true" {
		t.Fatal("the page reloaded to show the new job")
	}
	b.until("the job finished in the list", `document.querySelector('tr[data-key="`+key+`"] [data-state]')?.dataset.state === 'finished'`)

	// Filters run on the agent (job.page): no python jobs; one failed sh job.
	filter := func(typ string) {
		b.eval(`(() => { const f = document.querySelector('#view form.filters'); f.elements.type.value = ` + strconv.Quote(typ) +
			`; f.requestSubmit(); })()`)
	}
	filter("python")
	b.until("no python jobs", `location.hash.includes('type=python') && document.querySelector('#jobs-range')?.textContent === 'no jobs'`)
	filter("sh")
	b.click("the error tab of the sh jobs", `.tabs a[href*="status=error"][href*="type=sh"]`)
	b.until("the one failed job", `location.hash.includes('status=error') && document.querySelector('#jobs-range')?.textContent === '1–1 of 1'`)
}

func TestUIBrowserFlowDAGLogsAndCancel(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, a.hy(t, "flow", "run", a.flowFile(t, diamondFlow), "--wait", "--json"), &f)
	login(t, a, b)

	// One SVG node per job, each completed; a click opens its job.
	b.visit(fmt.Sprintf("#/flow/1/%d", f.ID), `document.querySelectorAll('#dag g.node').length === 4`)
	b.until("every node completed", `[...document.querySelectorAll('#dag g.node')].every(n => n.dataset.state === 'completed')`)
	names := b.eval(`[...document.querySelectorAll('#dag g.node')].map(n => n.dataset.name).sort().join(',')`)
	if names != "count-lines,count-words,fetch,report" {
		t.Fatalf("DAG nodes %q, want the flow's four jobs", names)
	}
	b.shot("flow")
	b.click("the report node", `#dag g.node[data-name="report"] rect`)
	b.until("the report job's page", `location.hash.startsWith('#/job/1/') && document.querySelector('#logs')?.textContent.includes('report')`)

	// Logs follow a running job: a line printed after the page opened
	// shows up on it.
	gate := filepath.Join(t.TempDir(), "go-on")
	key := a.submit(t, fmt.Sprintf("echo first-line; while [ ! -f %s ]; do sleep 0.05; done; echo second-line; echo to-stderr >&2", gate),
		"API_TOKEN=s3cret-value", "MODE=fast")
	b.visit("#/job/1/"+key, `document.querySelector('#logs')?.textContent.includes('first-line')`)
	if b.eval(`document.body.textContent.includes('s3cret-value') + ' ' + document.body.textContent.includes('fast')`) != "false true" {
		t.Fatal("the job page shows the secret-looking env value API_TOKEN, or hides the plain one MODE")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.until("the line printed after the page opened", `document.querySelector('#logs')?.textContent.includes('second-line')`)
	b.until("the job shown finished", `document.querySelector('#job h2 [data-state]')?.dataset.state === 'finished'`)
	// stdout and stderr told apart (the followed stream's entries): the
	// stderr line marked, the stdout ones not.
	b.until("the stderr line marked", `[...document.querySelectorAll('#logs [data-stream="stderr"]')].map(e => e.querySelector('.mark')?.textContent + e.lastChild.textContent.trim()).join() === 'E| to-stderr'`)
	if got := b.eval(`[...document.querySelectorAll('#logs [data-stream="stdout"]')].map(e => e.lastChild.textContent.trim()).join(',')`); got != "first-line,second-line" {
		t.Fatalf("stdout lines on the job page: %q, want first-line,second-line", got)
	}
	b.until("the timeline: created, started, finished", `['created', 'started', 'finished'].every(e => document.querySelector('#timeline li[data-event="' + e + '"]'))`)
	b.shot("job")

	// Retry a failed job from its page (job.retry): its second attempt
	// passes.
	once := filepath.Join(t.TempDir(), "failed-once")
	failed := a.submit(t, fmt.Sprintf("[ -f %[1]s ] || { touch %[1]s; echo first-attempt-fails >&2; exit 1; }; echo retried", once))
	b.visit("#/job/1/"+failed, `!!document.querySelector('#job-retry')`)
	b.click("Retry", `#job-retry`)
	b.until("the retried job finished", `document.querySelector('#job h2 [data-state]')?.dataset.state === 'finished'`)
	// Its attempts: the first ended error, the second (after the retry)
	// finished; the timeline has the retry between them.
	b.until("two attempts, error then finished", `[...document.querySelectorAll('#timeline tr[data-attempt] [data-state]')].map(e => e.dataset.state).join() === 'error,finished'`)
	b.until("the retry on the timeline", `!!document.querySelector('#timeline li[data-event="retry"]')`)
	var retried jobOut
	a.call(t, "job.load", map[string]any{"context": 1, "key": failed}, &retried)
	if retried.Status != "finished" || retried.Attempt != 2 {
		t.Fatalf("job %s after Retry in the browser: %s, attempt %d; want finished, attempt 2", failed, retried.Status, retried.Attempt)
	}

	// Cancel a running flow from its page.
	hold := filepath.Join(t.TempDir(), "never")
	var slow struct {
		ID uint64 `json:"id"`
	}
	decode(t, a.hy(t, "flow", "run", a.flowFile(t, fmt.Sprintf(`name: slow
context: 1
jobs:
  wait: {type: sh, script: 'while [ ! -f %s ]; do sleep 0.05; done'}
  after: {type: sh, needs: wait, script: 'echo after'}
`, hold)), "--json"), &slow)
	b.visit(fmt.Sprintf("#/flow/1/%d", slow.ID), `document.querySelector('#dag g.node[data-name="wait"]')?.dataset.state === 'running'`)
	b.shot("flow-running")
	b.confirm("Cancel", `#flow-cancel`)
	b.until("the flow ended", `['error', 'finished'].includes(document.querySelector('#flow-status [data-state]')?.dataset.state)`)
	b.until("no node left running or pending", `[...document.querySelectorAll('#dag g.node')].every(n => !['running', 'pending', 'dispatched', 'ready'].includes(n.dataset.state))`)
	var st struct {
		Status string `json:"status"`
	}
	a.call(t, "flow.status", map[string]any{"context": 1, "id": slow.ID}, &st)
	if st.Status != "error" {
		t.Fatalf("flow %d after Cancel in the browser: %s, want error (cancelled)", slow.ID, st.Status)
	}
}

func TestUIBrowserContextsAndDeadLetters(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	login(t, a, b)
	var other struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hy(t, "id", "--json", "--data-dir", newDataDir(t)), &other)

	// Grant a reader through the form, then revoke it: both through
	// context.grant and context.revoke with the session's CSRF value.
	b.visit("#/contexts", `!!document.querySelector('form[data-grant="1"]')`)
	b.eval(`(() => { const f = document.querySelector('form[data-grant="1"]');
		f.elements.actor.value = ` + strconv.Quote(other.PeerID) + `; f.elements.role.value = 'reader'; f.requestSubmit(); })()`)
	b.until("the new reader listed", `!!document.querySelector('li[data-role="reader"] button')`)
	var c struct {
		Readers []uint64 `json:"readers"`
	}
	a.call(t, "context.load", map[string]any{"id": 1}, &c)
	if len(c.Readers) != 1 {
		t.Fatalf("context 1 readers after the grant in the browser: %v", c.Readers)
	}
	b.shot("contexts")
	b.confirm("revoke", `li[data-role="reader"] button`)
	b.until("the reader gone", `!document.querySelector('li[data-role="reader"][data-actor]')`)

	b.visit("#/dead", `document.querySelector('#dead')?.textContent.includes('no dead letters')`)
	testDeadLettersRetryAndDelete(t, a, b)
}

// testDeadLettersRetryAndDelete has the runner dead-letter two queued
// keys (a job hash with a bogus status, which it ends error, and a plain
// string) and the bridge a malformed message, then, through the
// dead-letters view, deletes the string's entry, retries the job (its
// entry goes, it runs again) and the message (refused with the reason
// until fixed, then its job runs).
func testDeadLettersRetryAndDelete(t *testing.T, a *uiAgent, b *browser) {
	const job, junk = "job:1:900001", "job:1:900002"
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: filepath.Join(a.dir, "redis", "redis.sock"), DB: 1})
	defer c.Close()
	ctx := t.Context()
	if err := c.HSet(ctx, job, "id", 900001, "script", "echo revived", "script_type", "sh", "status", "bogus", "attempt", 1).Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, junk, "plain", 0)
	c.LPush(ctx, "queue:sh", job, junk)
	msg, msgJob := malformedMessage(t, c, a.info.PeerID)

	// The view reloads itself on store changes; refresh() in the poll
	// also covers a dead letter that changed no job.
	rows := `document.querySelectorAll('#dead tr[data-key]')`
	b.until("three dead letters listed", `(refresh(), `+rows+`.length === 3)`)
	if got := b.eval(`document.querySelector('#dead tr[data-key="` + msg + `"] td.class')?.textContent`); got != "invalid" {
		t.Fatalf("class shown for the malformed message: %q; want invalid", got)
	}
	b.shot("dead-letters")
	b.confirm("Delete on the string's entry", `#dead tr[data-key="`+junk+`"] button.delete`)
	b.until("the deleted entry gone", `(refresh(), `+rows+`.length === 2 && !document.querySelector('#dead tr[data-key="`+junk+`"]'))`)
	if left := deadKeys(t, a); len(left) != 2 || left[junk] {
		t.Fatalf("dead letters after Delete in the browser: %v; want %s and %s", left, job, msg)
	}

	b.click("Retry on the job's entry", `#dead tr[data-key="`+job+`"] button.retry`)
	b.until("the retried job's entry gone", `!document.querySelector('#dead tr[data-key="`+job+`"]')`)
	if left := deadKeys(t, a); left[job] {
		t.Fatalf("dead letters after Retry in the browser: %v; want %s gone", left, job)
	}
	retryMessageInBrowser(t, a, b, c, msg)
	b.visit("#/job/1/"+job, `document.querySelector('#job h2 [data-state]')?.dataset.state === 'finished'`)
	var retried jobOut
	a.call(t, "job.load", map[string]any{"context": 1, "key": job}, &retried)
	if retried.Status != "finished" || retried.Attempt != 2 {
		t.Fatalf("dead-lettered job %s after Retry in the browser: %s, attempt %d; want finished, attempt 2", job, retried.Status, retried.Attempt)
	}
	b.visit("#/job/1/"+msgJob, `document.querySelector('#job h2 [data-state]')?.dataset.state === 'finished'`)
}

// retryMessageInBrowser clicks Retry on the malformed message: the view
// shows the refusal naming the bad field and keeps the entry; once the
// field is fixed, Retry takes the entry off the list.
func retryMessageInBrowser(t *testing.T, a *uiAgent, b *browser, c *redis.Client, msg string) {
	t.Helper()
	row := `#dead tr[data-key="` + msg + `"]`
	b.click("Retry on the malformed message", row+` button.retry`)
	got := b.until("the refusal shown", `document.querySelector('`+row+` .retry-error')?.textContent`)
	if !strings.Contains(got, "timeout") {
		t.Fatalf("refusal shown for the malformed message: %q; want it to name the timeout field", got)
	}
	if !deadKeys(t, a)[msg] {
		t.Fatalf("the malformed message left the dead letters on a refused retry")
	}
	if err := c.HSet(t.Context(), msg, "timeout", "60").Err(); err != nil {
		t.Fatal(err)
	}
	b.click("Retry on the fixed message", row+` button.retry`)
	b.until("the fixed message's entry gone", `!document.querySelector('`+row+`')`)
}

// malformedMessage writes a job message whose timeout does not parse
// (HSET message + LPUSH msg_out, as a seed client does) for the agent
// peer; the bridge dead-letters it as invalid. It answers the message's
// key and its job's.
func malformedMessage(t *testing.T, c *redis.Client, peer string) (msg, job string) {
	t.Helper()
	jobs := `[{"id":"900004","caller_id":"1","script":"echo fixed","script_type":"sh","timeout":"60"}]`
	msg, job = "message:1:900003", "job:1:900004"
	if err := c.HSet(t.Context(), msg, "id", "900003", "caller_id", "1", "context_id", "1", "message_type", "job",
		"job", jobs, "dst", peer, "timeout", "soon").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(t.Context(), "msg_out", msg).Err(); err != nil {
		t.Fatal(err)
	}
	return msg, job
}

// deadKeys reads context 1's dead letters through the API, as a set of keys.
func deadKeys(t *testing.T, a *uiAgent) map[string]bool {
	t.Helper()
	var ds []struct {
		Key string `json:"key"`
	}
	a.call(t, "deadletter.list", map[string]any{"context": 1}, &ds)
	out := make(map[string]bool, len(ds))
	for _, d := range ds {
		out[d.Key] = true
	}
	return out
}
