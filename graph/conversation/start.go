package conversation

import (
	"context"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// Writer stores conversations; a transaction's repo.Queries is one.
type Writer interface {
	Accounts
	InsertConversation(ctx context.Context, c *repo.Conversation) error
	UpdateConversation(ctx context.Context, s repo.Scope, c *repo.Conversation) error
}

// Start is a new open conversation of a customer on a channel account: the
// one place a conversation begins, for sends and inbound messages alike. Its
// mode is the AI's unless the service's processing is off for the account.
// Nothing is stored until Save.
func Start(ctx context.Context, q Accounts, s repo.Scope, acc *repo.Account, customer *repo.Contact, comment bool, now time.Time) (*repo.Conversation, error) {
	processing, err := Processing(ctx, q, acc)
	if err != nil {
		return nil, fmt.Errorf("conversation: start: %w", err)
	}
	mode := "ai"
	if !processing {
		mode = "external"
	}
	return &repo.Conversation{ID: repo.NewID("conv_", now), WorkspaceID: s.WorkspaceID, Livemode: s.Livemode,
		Channel: acc.Channel, AccountID: acc.ID, WebsiteID: acc.WebsiteID, ContactID: &customer.ID,
		Status: "open", Mode: mode, IntegrationReplies: true, IsComment: comment, CreatedAt: now}, nil
}

// Save stores a conversation that gains a message at now: a new one is
// inserted, a known one updated, and either way it shows its customer's
// current name and addresses.
func Save(ctx context.Context, q Writer, s repo.Scope, c *repo.Conversation, customer *repo.Contact, created bool, now time.Time) error {
	if customer != nil {
		c.ContactName, c.ContactEmail, c.ContactPhone, c.ContactExternalID =
			&customer.Name, customer.Email, customer.Phone, customer.ExternalID
	}
	c.MessageCount++
	c.UpdatedAt, c.LastMessageAt = now, now
	var err error
	if created {
		err = q.InsertConversation(ctx, c)
	} else {
		err = q.UpdateConversation(ctx, s, c)
	}
	if err != nil {
		return fmt.Errorf("conversation: save %s: %w", c.ID, err)
	}
	return nil
}
