package seed

import (
	"errors"
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/repo"
)

// account validates and writes one channel account.
func (s *workspaceSeed) account(p string, a *repo.Account, prefix string) error {
	if prefix != "" && !strings.HasPrefix(a.ID, prefix) {
		return s.bad(p+".id", "must start with %s", prefix)
	}
	if a.ID == "" {
		return s.bad(p+".id", "is required")
	}
	if !s.websites[a.WebsiteID] {
		return s.bad(p+".website_id", "names no website of this workspace")
	}
	if _, dup := s.accounts[a.ID]; dup {
		return s.bad(p+".id", "is used twice")
	}
	s.accounts[a.ID] = a.Channel
	a.WorkspaceID = s.w.ID
	return s.wrap(p+".id", s.q.UpsertAccount(s.ctx, a))
}

// whatsappAndInstagram writes the WhatsApp numbers and Instagram accounts.
func (s *workspaceSeed) whatsappAndInstagram() error {
	for i, wa := range s.w.Whatsapp {
		p := fmt.Sprintf(".whatsapp[%d]", i)
		phone, err := contact.NormalizePhone(wa.PhoneNumber)
		if err != nil {
			return s.bad(p+".phone_number", "must be E.164 with a leading +")
		}
		if err := s.account(p, &repo.Account{ID: wa.ID, Channel: "whatsapp", WebsiteID: wa.WebsiteID, PhoneNumber: phone,
			Name: wa.Name, Status: nonEmpty(wa.Status, "connected"), MarketingMessages: wa.MarketingMessages,
			Processing: orDefault(wa.Processing, true)}, "wa_"); err != nil {
			return err
		}
		if err := s.provider(p, wa.ID, "whatsapp", wa.Provider); err != nil {
			return err
		}
	}
	for i, ig := range s.w.Instagram {
		p := fmt.Sprintf(".instagram[%d]", i)
		if err := s.account(p, &repo.Account{ID: ig.ID, Channel: "instagram",
			WebsiteID: ig.WebsiteID, Username: ig.Username, Status: nonEmpty(ig.Status, "connected"),
			Processing: orDefault(ig.Processing, true)}, "ig_"); err != nil {
			return err
		}
		if err := s.provider(p, ig.ID, "instagram", ig.Provider); err != nil {
			return err
		}
	}
	return nil
}

// provider checks, seals and stores an account's provider credentials.
func (s *workspaceSeed) provider(p, accountID, channel string, c *channels.Credentials) error {
	if c == nil {
		return nil
	}
	row, err := s.vault.Seal(s.w.ID, accountID, channel, *c, s.now)
	var bad *credentials.Invalid
	if errors.As(err, &bad) {
		return s.bad(p+".provider", "%s", bad.Reason)
	}
	if err != nil {
		return s.wrap(p+".provider", err)
	}
	err = s.q.UpsertAccountProvider(s.ctx, row)
	if taken := (*repo.ProviderIDTaken)(nil); errors.As(err, &taken) {
		return s.bad(p+".provider", "%v: a provider id routes to one account of one workspace; "+
			"disconnect it there (or remove it from that workspace's fixture) first", taken)
	}
	return s.wrap(p+".provider", err)
}

// email writes the email domains and addresses.
func (s *workspaceSeed) email() error {
	for i, d := range s.w.EmailDomains {
		p := fmt.Sprintf(".email_domains[%d].domain", i)
		if d.Domain == "" || strings.ContainsAny(d.Domain, "@ ") {
			return s.bad(p, "must be a domain name")
		}
		rp := strings.ToLower(d.ReturnPathDomain)
		if err := mail.CheckDomainName(rp); rp != "" && err != nil {
			return s.bad(fmt.Sprintf(".email_domains[%d].return_path_domain", i), "%v", err)
		}
		if err := s.q.UpsertEmailDomain(s.ctx, &repo.EmailDomain{WorkspaceID: s.w.ID, Domain: strings.ToLower(d.Domain),
			Verified: d.Verified, Processing: orDefault(d.Processing, true), ReturnPathDomain: rp}); err != nil {
			return s.wrap(p, err)
		}
		if err := s.dkim(i); err != nil {
			return err
		}
	}
	for i, e := range s.w.Email {
		p := fmt.Sprintf(".email[%d]", i)
		address, err := contact.NormalizeEmail(e.Address)
		if err != nil {
			return s.bad(p+".address", "must be an email address")
		}
		if err := s.addressFree(p+".address", address, e.ID); err != nil {
			return err
		}
		if err := s.account(p, &repo.Account{ID: e.ID, Channel: "email", WebsiteID: e.WebsiteID, Address: address,
			Status: "connected", Processing: true, ForwardingActive: e.ForwardingActive}, ""); err != nil {
			return err
		}
	}
	return nil
}

// addressFree refuses an email address another account holds: mail to it
// would go to both workspaces, and each could send as it.
func (s *workspaceSeed) addressFree(p, address, accountID string) error {
	routes, err := s.q.MailRoutes(s.ctx, address)
	if err != nil {
		return err
	}
	for _, r := range routes {
		if r.WorkspaceID != s.w.ID || r.AccountID != accountID {
			return s.bad(p, "%s is the address of email account %s of workspace %s: an address belongs to one account "+
				"of one workspace", address, r.AccountID, r.WorkspaceID)
		}
	}
	return nil
}

// templates writes the WhatsApp templates; a body with placeholders out of range is refused.
func (s *workspaceSeed) templates() error {
	for i, t := range s.w.Templates {
		p := fmt.Sprintf(".templates[%d]", i)
		switch {
		case s.accounts[t.WhatsappAccountID] != "whatsapp":
			return s.bad(p+".whatsapp_account_id", "names no WhatsApp number of this workspace")
		case t.Name == "":
			return s.bad(p+".name", "is required")
		case t.Language == "":
			return s.bad(p+".language", "is required")
		case !oneOf(t.Category, []string{"MARKETING", "UTILITY", "AUTHENTICATION"}):
			return s.bad(p+".category", "must be MARKETING, UTILITY or AUTHENTICATION")
		case !oneOf(t.Status, []string{"APPROVED", "PENDING", "REJECTED"}):
			return s.bad(p+".status", "must be APPROVED, PENDING or REJECTED")
		}
		if _, err := channels.PositionalParams(t.Body); err != nil {
			return s.bad(p+".body", "%s", err)
		}
		id := "tpl_" + auth.HashSecret(s.w.ID + "/" + t.WhatsappAccountID + "/" + t.Name + "/" + t.Language)[:24]
		if err := s.q.UpsertTemplate(s.ctx, &repo.Template{ID: id, WorkspaceID: s.w.ID, WhatsappAccountID: t.WhatsappAccountID,
			Name: t.Name, Language: t.Language, Category: t.Category, Status: t.Status, Body: t.Body}); err != nil {
			return s.wrap(p, err)
		}
	}
	return nil
}

// dkim seals and stores an email domain's DKIM key; a domain without one
// loses any key it had.
func (s *workspaceSeed) dkim(i int) error {
	d := s.w.EmailDomains[i]
	domain := strings.ToLower(d.Domain)
	var k repo.DomainKey
	if d.DKIM != nil {
		var err error
		if k, err = mail.SealDKIM(s.seal, s.w.ID, domain, d.DKIM.Selector, d.DKIM.PrivateKeyPEM); err != nil {
			return s.bad(fmt.Sprintf(".email_domains[%d]", i), "%v", err)
		}
	}
	return s.q.SetDomainKey(s.ctx, s.w.ID, domain, k)
}
