package wire

// FileView is one of a job's files (docs/design.md, "Files between jobs").
type FileView struct {
	Path   string `json:"path"`   // relative to the job's directory, slash-separated
	Size   int64  `json:"size"`   // bytes
	SHA256 string `json:"sha256"` // hex
	Mode   uint32 `json:"mode"`   // permission bits
}

// JobFilesView is job.files' answer: the job's files and where they are.
type JobFilesView struct {
	Context uint64     `json:"context"`
	Key     string     `json:"key"`
	Status  string     `json:"status"`
	Files   []FileView `json:"files"`
	// RanOn is the agent that ran the job and holds its files ("" or this
	// agent's peer ID: here).
	RanOn string `json:"ran_on,omitempty"`
}

// InputParam is one file of job.run's inputs: an upload (POST /files
// answered token and sha256) that the job finds as in/<Name>.
type InputParam struct {
	Name   string `json:"name"`           // its path under in/, slash-separated
	SHA256 string `json:"sha256"`         // the upload's
	Token  string `json:"token"`          // the upload's
	Mode   uint32 `json:"mode,omitempty"` // permission bits; default 0644
}

// UploadView answers POST /files: the upload's token and sum.
type UploadView struct {
	Token  string `json:"token"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}
