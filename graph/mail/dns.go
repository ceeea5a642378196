package mail

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Settings are the service-wide email settings graph/mail needs beside the
// stored ones.
type Settings struct {
	ReturnPath ReturnPath
	// MXHost is the name msgsvc's inbound listener is reached at
	// (MSGSVC_SMTP_HOSTNAME): the MX of return paths.
	MXHost string
	// RelayHost is the host of MSGSVC_SMTP_RELAY ("" without one), for
	// the SPF record.
	RelayHost string
}

// KeyStore reads a domain's DKIM key and return path; repo.Store is one.
type KeyStore interface {
	DomainKey(ctx context.Context, workspaceID, domain string) (*repo.DomainKey, error)
}

// DNS lists the records a sending domain publishes (GET /v1/email/senders).
type DNS struct {
	Store    KeyStore
	Keys     DKIMKeys
	Settings Settings
}

// Records are d's records: the DKIM key's TXT (when the domain has a key),
// the return path's MX to msgsvc (when the return path is not the sending
// domain itself: that MX is the domain's mailboxes') and SPF TXT, and a
// first DMARC TXT. The return path is the domain of the envelope sender.
func (v DNS) Records(ctx context.Context, workspaceID string, d repo.EmailDomain) (string, []*model.DNSRecord, error) {
	dk, err := domainKey(ctx, v.Store, workspaceID, d.Domain)
	if err != nil {
		return "", nil, err
	}
	rp := v.Settings.ReturnPath.Domain(d.Domain, dk.ReturnPathDomain)
	out := []*model.DNSRecord{}
	key, err := v.Keys.open(dk, workspaceID, d.Domain)
	if err != nil {
		return "", nil, err
	}
	if key != nil {
		txt, err := email.Record(key.PrivateKeyPEM)
		if err != nil {
			return "", nil, fmt.Errorf("mail: DKIM record of %s: %w", d.Domain, err)
		}
		out = append(out, &model.DNSRecord{Purpose: "dkim", Type: "TXT", Name: key.Selector + "._domainkey." + d.Domain, Value: txt})
	}
	if rp != d.Domain && v.Settings.MXHost != "" && !strings.HasPrefix(v.Settings.MXHost, "[") {
		out = append(out, &model.DNSRecord{Purpose: "return_path", Type: "MX", Name: rp, Value: "10 " + v.Settings.MXHost + "."})
	}
	out = append(out, &model.DNSRecord{Purpose: "spf", Type: "TXT", Name: rp, Value: "v=spf1 " + spfMechanism(v.Settings.RelayHost) + " ~all"},
		&model.DNSRecord{Purpose: "dmarc", Type: "TXT", Name: "_dmarc." + d.Domain, Value: "v=DMARC1; p=none; rua=mailto:dmarc@" + d.Domain})
	return rp, out, nil
}

// spfMechanism is what lets the relay's servers send for a domain: the SPF
// record Microsoft 365, Google and Amazon SES publish for their senders,
// else the relay's own address.
func spfMechanism(relayHost string) string {
	h := strings.ToLower(relayHost)
	switch {
	case strings.HasSuffix(h, ".office365.com"), strings.HasSuffix(h, ".outlook.com"):
		return "include:spf.protection.outlook.com"
	case strings.HasSuffix(h, ".gmail.com"), strings.HasSuffix(h, ".google.com"):
		return "include:_spf.google.com"
	case strings.HasSuffix(h, ".amazonaws.com"):
		return "include:amazonses.com"
	case h == "":
		return "a"
	case net.ParseIP(h) != nil && strings.Contains(h, ":"):
		return "ip6:" + h
	case net.ParseIP(h) != nil:
		return "ip4:" + h
	}
	return "a:" + h
}
