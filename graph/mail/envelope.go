package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// Envelope completes outbound emails: the sending domain and its return
// path, its DKIM key (live sends only), the thread's In-Reply-To and
// References, and the contact's unsubscribe link. graph/send calls it in
// its transaction.
type Envelope struct {
	Keys       DKIMKeys
	Links      Links
	ReturnPath ReturnPath
}

// DomainOf is the domain of an address.
func DomainOf(address string) string {
	return strings.ToLower(address[strings.LastIndex(address, "@")+1:])
}

// Complete fills e for a message of the conversation (conversationID empty
// for a new thread) to the contact.
func (v *Envelope) Complete(ctx context.Context, q repo.Queries, s repo.Scope, conversationID, contactID string, e *channels.Email) error {
	e.Domain = DomainOf(e.From)
	if contactID != "" {
		e.UnsubscribeURL = v.Links.URL(Unsubscribe{WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
			ContactID: contactID, Domain: e.Domain})
	}
	dk, err := domainKey(ctx, q, s.WorkspaceID, e.Domain)
	if err != nil {
		return fmt.Errorf("mail: domain %s: %w", e.Domain, err)
	}
	e.ReturnPath = v.ReturnPath.Domain(e.Domain, dk.ReturnPathDomain)
	if s.Livemode {
		if e.DKIM, err = v.Keys.open(dk, s.WorkspaceID, e.Domain); err != nil {
			return err
		}
	}
	if conversationID == "" {
		return nil
	}
	head, err := q.ThreadHead(ctx, s, conversationID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil // a thread we started and the customer never answered
	}
	if err != nil {
		return fmt.Errorf("mail: thread head: %w", err)
	}
	e.InReplyTo = head.HeaderID
	var h model.EmailHeaders
	if len(head.Email) > 0 {
		if err := json.Unmarshal(head.Email, &h); err != nil {
			return fmt.Errorf("mail: stored headers of the thread: %w", err)
		}
	}
	e.References = append(trimRefs(h.References), head.HeaderID)
	return nil
}

// maxReferences keeps References short on long threads: the first id (the
// thread's root) and the latest ones, as RFC 5322 3.6.4 allows.
const maxReferences = 20

func trimRefs(refs []string) []string {
	if len(refs) < maxReferences {
		return append([]string{}, refs...)
	}
	return append([]string{refs[0]}, refs[len(refs)-maxReferences+2:]...)
}

// FileContents fills the bytes of attachments that were uploaded before the
// send (inline ones have theirs).
func FileContents(ctx context.Context, q repo.Queries, s repo.Scope, files []channels.File) error {
	for i := range files {
		if files[i].Content != nil {
			continue
		}
		content, err := q.FileContent(ctx, s, files[i].ID)
		if err != nil {
			return fmt.Errorf("mail: attachment %s: %w", files[i].ID, err)
		}
		files[i].Content = content
	}
	return nil
}
