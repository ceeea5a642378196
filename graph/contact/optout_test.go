package contact_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

func ptr[T any](v T) *T { return &v }

// A PATCH's opt-out is per channel: it sets that channel's only, says
// opt_outs changed, records contact.updated once per change, and leaves
// the WhatsApp marketing opt-out alone.
func TestUpdateOptOutPerChannel(t *testing.T) {
	t.Parallel()
	svc, store := seeded(t)
	ctx := caller(false)
	for _, c := range []struct {
		channel string
		contact string
		set     func(in *model.UpdateContactInput, v bool)
		want    func(v bool) model.OptOuts
	}{
		{"whatsapp", "ct_old", func(in *model.UpdateContactInput, v bool) { in.WhatsappOptOut = &v },
			func(v bool) model.OptOuts { return model.OptOuts{Whatsapp: v} }},
		{"email", "ct_recent", func(in *model.UpdateContactInput, v bool) { in.EmailOptOut = &v },
			func(v bool) model.OptOuts { return model.OptOuts{Email: v} }},
		{"instagram", "ct_visitor", func(in *model.UpdateContactInput, v bool) { in.InstagramOptOut = &v },
			func(v bool) model.OptOuts { return model.OptOuts{Instagram: v} }},
	} {
		t.Run(c.channel, func(t *testing.T) {
			for _, step := range []struct {
				optOut  bool
				changed []string
			}{{true, []string{"opt_outs"}}, {true, []string{}}, {false, []string{"opt_outs"}}} {
				var in model.UpdateContactInput
				c.set(&in, step.optOut)
				out, err := svc.Update(ctx, c.contact, in)
				if err != nil {
					t.Fatalf("opt-out %v: %v", step.optOut, err)
				}
				if !slices.Equal(out.Changed, step.changed) {
					t.Errorf("opt-out %v: changed: got %q, want %q", step.optOut, out.Changed, step.changed)
				}
				if got, want := out.Contact.OptOuts, c.want(step.optOut); got != want {
					t.Errorf("opt-out %v: opt_outs: got %+v, want %+v", step.optOut, got, want)
				}
				if out.Contact.MarketingOptOuts.Whatsapp {
					t.Errorf("opt-out %v: marketing_opt_outs.whatsapp: got true, want false", step.optOut)
				}
			}
			wantUpdates(t, store, c.contact, []string{"opt_outs"}, []string{"opt_outs"})
		})
	}
	// Several fields at once: one event naming each changed field once.
	out, err := svc.Update(ctx, "ct_optout", model.UpdateContactInput{Name: ptr("Otto B"),
		WhatsappOptOut: ptr(false), EmailOptOut: ptr(false), InstagramOptOut: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"name", "opt_outs"}; !slices.Equal(out.Changed, want) {
		t.Errorf("name and opt-outs: changed: got %q, want %q", out.Changed, want)
	}
	if out.Contact.OptOuts != (model.OptOuts{}) {
		t.Errorf("name and opt-outs: opt_outs: got %+v, want none", out.Contact.OptOuts)
	}
	wantUpdates(t, store, "ct_optout", []string{"name", "opt_outs"})
}

// A refused PATCH changes nothing and records nothing.
func TestUpdateRefusals(t *testing.T) {
	t.Parallel()
	svc, store := seeded(t)
	for _, c := range []struct {
		rule string
		key  bool // a key limited to one website
		id   string
		in   model.UpdateContactInput
		code apierr.Code
		msg  string
	}{
		{"another contact's email", false, "ct_old", model.UpdateContactInput{Email: ptr("rita@customers.test"), WhatsappOptOut: ptr(true)},
			apierr.ContactExists, "Contact ct_recent already has this email."},
		{"another contact's phone", false, "ct_old", model.UpdateContactInput{Phone: ptr("+1 555 000 9002"), WhatsappOptOut: ptr(true)},
			apierr.ContactExists, "Contact ct_recent already has this phone."},
		{"a phone without country code", false, "ct_old", model.UpdateContactInput{Phone: ptr("555"), WhatsappOptOut: ptr(true)},
			apierr.InvalidPhone, "needs a country code"},
		{"not an email address", false, "ct_old", model.UpdateContactInput{Email: ptr("olga"), WhatsappOptOut: ptr(true)},
			apierr.InvalidEmail, `"olga" is not an email address.`},
		{"a name over 256 characters", false, "ct_old", model.UpdateContactInput{Name: ptr(strings.Repeat("a", 257)), WhatsappOptOut: ptr(true)},
			apierr.InvalidRequest, "name must be at most 256 characters."},
		{"an unknown contact", false, "ct_missing", model.UpdateContactInput{WhatsappOptOut: ptr(true)},
			apierr.ContactNotFound, "No contact ct_missing."},
		{"a live contact, for a test key", false, "ct_live", model.UpdateContactInput{WhatsappOptOut: ptr(true)},
			apierr.ContactNotFound, "No contact ct_live."},
		{"a key limited to a website", true, "ct_old", model.UpdateContactInput{WhatsappOptOut: ptr(true)},
			apierr.ContactsNeedAllWebsites, ""},
		{"its own email, unchanged", false, "ct_old", model.UpdateContactInput{Email: ptr("olga@customers.test")}, "", ""},
	} {
		t.Run(c.rule, func(t *testing.T) {
			ctx := caller(false)
			if c.key {
				ctx = caller(false, "web_main")
			}
			_, err := svc.Update(ctx, c.id, c.in)
			apierrtest.Want(t, err, c.code, c.msg)
		})
	}
	wantUpdates(t, store, "ct_old")
	wantUpdates(t, store, "ct_live")
}

// Creating a contact: an email or a phone, each unique in its workspace
// and mode (email case-insensitively, phone in E.164).
func TestCreateRules(t *testing.T) {
	t.Parallel()
	svc, _ := seeded(t)
	for _, c := range []struct {
		rule string
		live bool
		in   model.CreateContactInput
		code apierr.Code
		msg  string
	}{
		{"neither email nor phone", false, model.CreateContactInput{Name: ptr("Nobody")}, apierr.InvalidRequest, "A contact needs an email or a phone."},
		{"an email in other case", false, model.CreateContactInput{Email: ptr("OLGA@customers.test")}, apierr.ContactExists, "Contact ct_old already has this email."},
		{"a phone in another form", false, model.CreateContactInput{Phone: ptr("+1 (555) 000-9001")}, apierr.ContactExists, "Contact ct_old already has this phone."},
		{"a name over 256 characters", false, model.CreateContactInput{Name: ptr(strings.Repeat("é", 257)), Email: ptr("n@example.com")},
			apierr.InvalidRequest, "name must be at most 256 characters."},
		{"the same email in live mode", true, model.CreateContactInput{Email: ptr("olga@customers.test")}, "", ""},
		{"a new phone", false, model.CreateContactInput{Phone: ptr("+44 20 7946 0958")}, "", ""},
	} {
		t.Run(c.rule, func(t *testing.T) {
			_, err := svc.Create(caller(c.live), c.in)
			apierrtest.Want(t, err, c.code, c.msg)
		})
	}
}

// The WhatsApp marketing opt-out (a stop from the customer's preferences,
// a 131050, a resume) is set by phone or WhatsApp user id within its
// scope, leaves the channel opt-out alone, and is announced only when it
// changes.
func TestSetMarketingOptOut(t *testing.T) {
	t.Parallel()
	svc, store := seeded(t)
	waUser := "US.13491208655302741918"
	err := store.InTx(t.Context(), func(q repo.Queries) error {
		return q.InsertContact(t.Context(), &repo.Contact{ID: "ct_bsuid", WorkspaceID: "ws_main", Name: "Bea",
			WhatsAppUserID: &waUser, Source: "captured", CreatedAt: epoch, UpdatedAt: epoch})
	})
	if err != nil {
		t.Fatal(err)
	}
	test := repo.Scope{WorkspaceID: "ws_main"}
	for _, c := range []struct {
		rule    string
		who     string
		optOut  bool
		changed bool
	}{
		{"stop by phone", "+15550009001", true, true},
		{"stop again", "+15550009001", true, false},
		{"resume", "+15550009001", false, true},
		{"stop by WhatsApp user id", waUser, true, true},
		{"an unknown number", "+15550000000", true, false},
		{"a live contact's number, in test mode", "+15550009005", true, false},
	} {
		var changed bool
		err := store.InTx(t.Context(), func(q repo.Queries) error {
			ct, err := contact.SetOptOut(t.Context(), q, svc.Events, test, contact.OptOut{Channel: "whatsapp",
				Kind: contact.Marketing, Stop: c.optOut, Address: c.who}, epoch)
			changed = ct != nil
			return err
		})
		if err != nil || changed != c.changed {
			t.Errorf("%s: changed: got %v (%v), want %v", c.rule, changed, err, c.changed)
		}
	}
	marketing := []string{"marketing_opt_outs"}
	wantUpdates(t, store, "ct_old", marketing, marketing)
	wantUpdates(t, store, "ct_bsuid", marketing)
	wantUpdates(t, store, "ct_live")
	old, err := svc.Get(caller(false), "ct_old")
	if err != nil {
		t.Fatal(err)
	}
	if old.MarketingOptOuts.Whatsapp || old.OptOuts.Whatsapp {
		t.Errorf("ct_old after stop and resume: marketing %v, opt_outs.whatsapp %v; want false, false",
			old.MarketingOptOuts.Whatsapp, old.OptOuts.Whatsapp)
	}
	bea, err := svc.Get(caller(false), "ct_bsuid")
	if err != nil {
		t.Fatal(err)
	}
	if !bea.MarketingOptOuts.Whatsapp || bea.OptOuts.Whatsapp {
		t.Errorf("ct_bsuid after a stop: marketing %v, opt_outs.whatsapp %v; want true, false",
			bea.MarketingOptOuts.Whatsapp, bea.OptOuts.Whatsapp)
	}
}
