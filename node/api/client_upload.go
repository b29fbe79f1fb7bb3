package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// Upload streams r's bytes to a plain endpoint (POST path, e.g. /files:
// a job's --input) and returns the response body. Memory does not grow
// with what r yields.
func (c *Client) Upload(ctx context.Context, path string, r io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	c.auth(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.connErr(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("%w: %s refused the token (%s)", ErrUnauthorized, c.base, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return b, err
}
