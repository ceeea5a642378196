package mail

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/signing"
)

// Bounces signs and checks the envelope senders of outbound mail,
// bounces+{msg_id}-{token}@{return path}. The token is an HMAC of the
// message id under the service secret: a bounce address cannot be made
// from a message id (which every recipient reads in Message-ID, and
// which counts up within a millisecond), only read off the envelope of
// that one message. Nothing is stored: every secret of the rotation
// checks a token, so mail sent before a rotation still bounces.
type Bounces struct {
	Secrets signing.Secrets
}

// bounceTokenBytes keeps the address within SMTP's 64 octets of local
// part (RFC 5321 4.5.3.1.1): "bounces+" (8), an id (33), "-" and 20
// characters of token (96 bits) make 62.
const bounceTokenBytes = 12

// tokenEncoding is lower case, as an address may come back lower-cased.
var tokenEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

func bounceMAC(secret, msgID string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("msgsvc-bounce\x00" + msgID))
	return tokenEncoding.EncodeToString(m.Sum(nil)[:bounceTokenBytes])
}

// Token is the bounce token of a message.
func (b Bounces) Token(msgID string) string { return bounceMAC(b.Secrets.Signing(), msgID) }

// Parse reads a bounce address: isBounce says it has the shape
// bounces+…@domain (no other recipient may have it), ok that its token is
// its message's.
func (b Bounces) Parse(address string) (msgID, domain string, isBounce, ok bool) {
	msgID, token, domain, isBounce := email.ParseBounceAddress(address)
	if !isBounce || msgID == "" || token == "" {
		return "", "", isBounce, false
	}
	if !b.Secrets.Verify(token, func(secret string) string { return bounceMAC(secret, msgID) }) {
		return "", "", true, false
	}
	return msgID, domain, true, true
}
