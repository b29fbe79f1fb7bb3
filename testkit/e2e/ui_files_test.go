package e2e

import (
	"strconv"
	"testing"
)

// TestUIBrowserJobFilesDownload: a job's files are listed on its page,
// and the page's session downloads one (the Download button brings it
// here with job.fetch; GET /files/… streams it).
func TestUIBrowserJobFilesDownload(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	var j jobOut
	decode(t, a.hy(t, "job", "run", "--context", "1", "--script", "echo app > app.bin", "--output", "app.bin", "--wait", "--json"), &j)
	var fv struct {
		Files []struct {
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	decode(t, a.hy(t, "job", "files", "-c", "1", j.Key, "--json"), &fv)
	if len(fv.Files) != 1 {
		t.Fatalf("job files: %+v", fv)
	}
	login(t, a, b)
	b.visit("#/job/1/"+j.Key, `document.querySelector('#view')?.textContent.includes('app.bin') && !!document.querySelector('.file-get')`)
	b.click("Download", ".file-get")
	b.until("the fetch's toast", `document.querySelector('#toast')?.textContent.includes('fetch app.bin: done')`)
	url := "/files/1/" + j.Key + "/" + fv.Files[0].SHA256
	b.eval(`fetch(` + strconv.Quote(url) + `).then(r => r.text()).then(t => { window.got = t; })`)
	if got := b.until("the file through the session", `window.got`); got != "app\n" {
		t.Fatalf("the page downloaded %q, want the job's app.bin", got)
	}
}
