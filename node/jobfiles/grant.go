package jobfiles

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Grants: when a flow's producer ran on one agent and its consumer runs on
// a third, the producer's agent cannot tell that the consumer's agent runs
// a job that needs the files: the flow is another agent's. The flow's
// agent, the producer's origin, which the producer's agent trusts for
// that job, says so: it signs "peer P may have the files of ref R until T"
// with its identity key, and the consumer asks with that grant as its ref.

// grantPrefix starts a grant ref: g1.<unix expiry>.<signature>.<ref>.
const grantPrefix = "g1."

// GrantTTL is how long a grant holds: a consumer's retries and delays
// fit in it.
const GrantTTL = 7 * 24 * time.Hour

// SignGrant is the ref through which peer to may have the files of ref (a
// job on another agent whose origin is key's holder), until exp.
func SignGrant(key crypto.PrivKey, ref, to string, exp time.Time) (string, error) {
	e := strconv.FormatInt(exp.Unix(), 10)
	sig, err := key.Sign(grantMessage(ref, to, e))
	if err != nil {
		return "", fmt.Errorf("jobfiles.SignGrant: %w", err)
	}
	return grantPrefix + e + "." + base64.RawURLEncoding.EncodeToString(sig) + "." + ref, nil
}

func grantMessage(ref, to, exp string) []byte {
	return []byte("hyphae/files/grant/1\n" + ref + "\n" + to + "\n" + exp)
}

// isGrant reports whether ref is a grant.
func isGrant(ref string) bool { return strings.HasPrefix(ref, grantPrefix) }

// openGrant checks grant g for peer p against signer (the job's origin)
// and returns the ref it grants.
func openGrant(g string, p peer.ID, signer func(ref string) (string, error), now time.Time) (string, error) {
	parts := strings.SplitN(strings.TrimPrefix(g, grantPrefix), ".", 3)
	if len(parts) != 3 {
		return "", errors.New("malformed grant")
	}
	exp, err := strconv.ParseInt(parts[0], 10, 64)
	sig, serr := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || serr != nil {
		return "", errors.New("malformed grant")
	}
	if now.Unix() > exp {
		return "", errors.New("the grant has expired")
	}
	ref := parts[2]
	origin, err := signer(ref)
	if err != nil {
		return "", err
	}
	id, err := peer.Decode(origin)
	if err != nil {
		return "", fmt.Errorf("job %s came from no agent that may grant its files", ref)
	}
	pub, err := id.ExtractPublicKey()
	if err != nil {
		return "", fmt.Errorf("grant signer: %w", err)
	}
	if ok, err := pub.Verify(grantMessage(ref, p.String(), parts[0]), sig); err != nil || !ok {
		return "", fmt.Errorf("the grant is not signed by %s, where job %s came from", shortPeer(origin), ref)
	}
	return ref, nil
}
