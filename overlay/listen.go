package overlay

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	ma "github.com/multiformats/go-multiaddr"
)

// checkListenFree fails when a fixed TCP or UDP port to listen on is taken.
//
// libp2p listens on TCP with SO_REUSEPORT, which hole punching needs (a
// dial must leave from the listen port), so a second agent on the same
// machine and port would otherwise share the port with the first without
// an error and receive part of its connections. A plain bind, without
// SO_REUSEPORT, fails while any other socket listens there; it is closed at
// once and libp2p binds the port for real.
func checkListenFree(addrs []string) error {
	var errs []error
	for _, s := range addrs {
		if err := probeListen(s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// probeListen binds and releases one listen multiaddr's port.
func probeListen(s string) error {
	m, err := ma.NewMultiaddr(s)
	if err != nil {
		return nil // Validate reports it
	}
	ip, family := "", "4"
	if v, err := m.ValueForProtocol(ma.P_IP4); err == nil {
		ip = v
	} else if v, err := m.ValueForProtocol(ma.P_IP6); err == nil {
		ip, family = v, "6"
	} else {
		return nil // DNS or another transport: libp2p reports it
	}
	if port, err := m.ValueForProtocol(ma.P_TCP); err == nil && port != "0" {
		l, err := net.Listen("tcp"+family, net.JoinHostPort(ip, port))
		if err != nil {
			return listenInUse(s, err)
		}
		return l.Close()
	}
	if port, err := m.ValueForProtocol(ma.P_UDP); err == nil && port != "0" {
		c, err := net.ListenPacket("udp"+family, net.JoinHostPort(ip, port))
		if err != nil {
			return listenInUse(s, err)
		}
		return c.Close()
	}
	return nil
}

// listenInUse explains a failed bind.
func listenInUse(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen %s: address already in use (another hyphae agent on this machine? give each agent its own --listen port): %w", addr, err)
	}
	return fmt.Errorf("listen %s: %w", addr, err)
}
