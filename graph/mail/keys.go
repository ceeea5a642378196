// Package mail is the email channel's rules on msgsvc's side: DKIM keys
// sealed per domain, the headers an outbound email gets from its thread,
// signed unsubscribe links, inbound mail turned into messages (threading,
// attachments, sanitised HTML), bounces and owner notices. The SMTP and MIME
// work is in channels/email.
package mail

import (
	"context"
	"errors"
	"fmt"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo"
)

// KeyAAD binds a sealed DKIM key to its workspace and domain.
func KeyAAD(workspaceID, domain string) string {
	return "email_domains:" + workspaceID + ":" + domain
}

// SealDKIM checks a DKIM key (it must sign) and seals it for its domain.
func SealDKIM(key seal.Key, workspaceID, domain, selector, keyPEM string) (repo.DomainKey, error) {
	if selector == "" {
		return repo.DomainKey{}, errors.New("dkim.selector is required")
	}
	if err := email.CheckKey(keyPEM); err != nil {
		return repo.DomainKey{}, fmt.Errorf("dkim.private_key_pem: %w", err)
	}
	sealed, err := key.Seal([]byte(keyPEM), KeyAAD(workspaceID, domain))
	if err != nil {
		return repo.DomainKey{}, err
	}
	return repo.DomainKey{Selector: selector, Sealed: sealed}, nil
}

// DKIMKeys opens the DKIM keys of sending domains.
type DKIMKeys struct {
	Seal seal.Key
}

// domainKey reads a domain's stored key and return path (empty when the
// domain has none).
func domainKey(ctx context.Context, q KeyStore, workspaceID, domain string) (*repo.DomainKey, error) {
	dk, err := q.DomainKey(ctx, workspaceID, domain)
	if errors.Is(err, repo.ErrNotFound) {
		return &repo.DomainKey{}, nil
	}
	return dk, err
}

// open unseals a stored key (nil when the domain has none).
func (k DKIMKeys) open(dk *repo.DomainKey, workspaceID, domain string) (*channels.DKIMKey, error) {
	if dk.Sealed == "" {
		return nil, nil
	}
	pemKey, err := k.Seal.Open(dk.Sealed, KeyAAD(workspaceID, domain))
	if err != nil {
		return nil, fmt.Errorf("mail: DKIM key of %s: %w", domain, err)
	}
	return &channels.DKIMKey{Selector: dk.Selector, PrivateKeyPEM: string(pemKey)}, nil
}
