package ui

import (
	"encoding/json"
	"strings"
	"testing"
)

// fakeDOM loads dom.js and views.js (the paths given after the script)
// into a vm context with a minimal fake DOM, for the page scripts below.
const fakeDOM = `
const fs = require('fs'), vm = require('vm');
class Node {}
class Text extends Node { constructor(t) { super(); this.t = t; } get textContent() { return this.t; } }
class Elem extends Node {
  constructor(tag) { super(); this.tag = tag; this.attrs = {}; this.kids = []; this.style = {}; }
  setAttribute(k, v) { this.attrs[k] = v; }
  addEventListener() {}
  append(...k) { this.kids.push(...k); }
  replaceChildren(...k) { this.kids = k; }
  set textContent(t) { this.kids = [new Text(t)]; }
  get textContent() { return this.kids.map(k => k.textContent).join(''); }
}
const document = {
  createElement: tag => new Elem(tag), createElementNS: (_, tag) => new Elem(tag),
  createTextNode: t => new Text(t), getElementById: () => new Elem('div'),
};
const ctx = vm.createContext({document, Node, console, Date, Math, Object, String, Number, JSON});
vm.runInContext('var Views = {}, H = {};', ctx);
for (const f of process.argv.slice(2)) vm.runInContext(fs.readFileSync(f, 'utf8'), ctx, {filename: f});
`

// jobPageScript renders the job page's detail (jobDetail in views.js,
// with dom.js) against a minimal fake DOM under Node.js and prints the
// page's name → value pairs as JSON, with the whole text under "".
const jobPageScript = fakeDOM + `
const job = JSON.parse(fs.readFileSync(0, 'utf8'));
ctx.job = job;
const page = vm.runInContext('jobDetail(1, job, document.createElement("pre"), document.createElement("div"))', ctx);
const out = {'': page.textContent};
const walk = e => {
  if (!(e instanceof Elem)) return;
  if (e.tag === 'dl') for (let i = 0; i + 1 < e.kids.length; i += 2) out[e.kids[i].textContent] = e.kids[i + 1].textContent;
  e.kids.forEach(walk);
};
walk(page);
process.stdout.write(JSON.stringify(out));
`

// renderJobPage runs jobPageScript on the embedded assets for job.
func renderJobPage(t *testing.T, job map[string]any) map[string]string {
	t.Helper()
	in, _ := json.Marshal(job)
	b := runPageScript(t, jobPageScript, string(in))
	var out map[string]string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("page %s: %v", b, err)
	}
	return out
}

// The job page masks env values on screen: a secret-looking name hides its
// value, and any other value shows with a URL's or DSN's password and
// secret-looking query parameters masked (DATABASE_URL is not a secret
// name, its password is a secret). Display only: job.load is unchanged.
func TestJobPageMasksEnvSecrets(t *testing.T) {
	env := map[string]string{
		"DATABASE_URL": "postgres://u:PASSWORD@db/app",
		"CACHE":        "redis://:PASSWORD@cache:6379/0",
		"AMQP":         "amqp://u:PASS%40WORD@mq,amqp://v:PASSWORD@mq2",
		"MYSQL_DSN":    "app:PASSWORD@tcp(db:3306)/x",
		"CALLBACK":     "https://hook.example/cb?x=1&access_token=PASSWORD#top",
		"JDBC":         "jdbc:sqlserver://db;user=u;password=PASSWORD",
		"API_TOKEN":    "PASSWORD",
		"HOMEPAGE":     "https://example.com:8443/a?page=2",
		"ADMIN":        "https://alice@example.com/",
		"PLAIN":        "hello",
	}
	page := renderJobPage(t, map[string]any{"key": "k1", "state": "finished", "status": "finished", "attempt": 1,
		"script_type": "sh", "script": "true", "created_at": 1, "updated_at": 2, "env_vars": env})
	if strings.Contains(page[""], "PASSWORD") || strings.Contains(page[""], "PASS%40WORD") {
		t.Errorf("the job page shows a secret: %q", page[""])
	}
	for k, want := range map[string]string{
		"DATABASE_URL": "postgres://u:****@db/app",
		"CACHE":        "redis://:****@cache:6379/0",
		"AMQP":         "amqp://u:****@mq,amqp://v:****@mq2",
		"MYSQL_DSN":    "app:****@tcp(db:3306)/x",
		"CALLBACK":     "https://hook.example/cb?x=1&access_token=****#top",
		"JDBC":         "jdbc:sqlserver://db;user=u;password=****",
		"API_TOKEN":    "•••••• (masked)",
		"HOMEPAGE":     "https://example.com:8443/a?page=2",
		"ADMIN":        "https://alice@example.com/",
		"PLAIN":        "hello",
	} {
		if page[k] != want {
			t.Errorf("env %s shown as %q, want %q", k, page[k], want)
		}
	}
}
