package wire

// ReloadView answers POST /admin/reload (and is logged on SIGHUP): what
// re-reading the config did.
type ReloadView struct {
	// File is the config file read; "" when there is none (the flags
	// and defaults alone were read again).
	File string `json:"file"`
	// Applied are the keys that changed and took effect at once.
	Applied []string `json:"applied"`
	// Restart are the keys or sections that changed and take effect at
	// the next start only: the parts holding them read them at start.
	Restart []string `json:"restart"`
}
