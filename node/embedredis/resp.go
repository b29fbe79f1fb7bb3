package embedredis

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// probeTimeout bounds one raw command to the child's socket.
const probeTimeout = 2 * time.Second

// command sends one command over a fresh unix-socket connection and returns
// the first line of the reply (e.g. "+PONG", "-LOADING …"). It is used where
// a go-redis client would be too much: readiness probes and SHUTDOWN. A
// connection closed without a reply yields io.EOF (SHUTDOWN's success).
func command(ctx context.Context, sock string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return "", err
	}
	if _, err := conn.Write(encodeCommand(args)); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// encodeCommand renders args as a RESP array of bulk strings.
func encodeCommand(args []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}

// ping reports whether something answers on sock, and its reply line.
func ping(ctx context.Context, sock string) (string, bool) {
	line, err := command(ctx, sock, "PING")
	return line, err == nil
}
