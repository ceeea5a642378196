package contact_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/repo"
)

// optOutStore is one contact in memory: SetOptOut changes its flag as the
// conditional statement does and remembers what it was asked.
type optOutStore struct {
	c      repo.Contact
	calls  []string // column by who
	events []*repo.Event
}

func (s *optOutStore) SetOptOut(_ context.Context, _ repo.Scope, column, by, who string, value bool, at time.Time) (*repo.Contact, error) {
	s.calls = append(s.calls, column+" by "+by+" "+who)
	match := map[string]bool{
		"id":        who == s.c.ID,
		"whatsapp":  who == *s.c.Phone || who == *s.c.WhatsAppUserID,
		"email":     who == *s.c.Email,
		"instagram": who == *s.c.InstagramUserID,
	}[by]
	flag := map[string]*bool{"opt_out_whatsapp": &s.c.OptOutWhatsapp, "opt_out_email": &s.c.OptOutEmail,
		"opt_out_instagram": &s.c.OptOutInstagram, "marketing_opt_out_whatsapp": &s.c.MarketingOptOutWhatsapp}[column]
	if !match || flag == nil || *flag == value {
		return nil, repo.ErrNotFound
	}
	*flag, s.c.UpdatedAt = value, at
	c := s.c
	return &c, nil
}

func (s *optOutStore) InsertEvent(_ context.Context, e *repo.Event) error {
	s.events = append(s.events, e)
	return nil
}

func (*optOutStore) InsertAIWork(context.Context, *repo.AIWork) error { return nil }

// changed is the changed list of a contact.updated event.
func (s *optOutStore) changed(t *testing.T, e *repo.Event) []string {
	t.Helper()
	var env struct {
		Type string
		Data struct{ Changed []string }
	}
	if err := json.Unmarshal(e.Envelope, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != "contact.updated" {
		t.Errorf("event type: got %s, want contact.updated", env.Type)
	}
	return env.Data.Changed
}

// Every channel × kind × way of naming the contact: the flag it changes,
// the event it records once (none when nothing changes) and what the
// event says changed; an opt-out a channel does not have is an error.
func TestSetOptOut(t *testing.T) {
	t.Parallel()
	test := repo.Scope{WorkspaceID: "ws_main"}
	for _, c := range []struct {
		channel string
		kind    contact.Kind
		address string
		column  string
		changed string
	}{
		{"whatsapp", contact.All, "+15550009001", "opt_out_whatsapp", "opt_outs"},
		{"whatsapp", contact.All, "US.1349", "opt_out_whatsapp", "opt_outs"},
		{"whatsapp", contact.Marketing, "+15550009001", "marketing_opt_out_whatsapp", "marketing_opt_outs"},
		{"whatsapp", contact.Marketing, "US.1349", "marketing_opt_out_whatsapp", "marketing_opt_outs"},
		{"email", contact.All, "ana@example.com", "opt_out_email", "opt_outs"},
		{"instagram", contact.All, "17841", "opt_out_instagram", "opt_outs"},
		{"email", contact.Marketing, "ana@example.com", "", ""},
		{"instagram", contact.Marketing, "17841", "", ""},
	} {
		for _, byID := range []bool{true, false} {
			name := c.channel + "/" + string(c.kind) + "/" + c.address
			if byID {
				name = c.channel + "/" + string(c.kind) + "/id"
			}
			t.Run(name, func(t *testing.T) {
				st := &optOutStore{c: repo.Contact{ID: "ct_ana", Phone: ptr("+15550009001"), WhatsAppUserID: ptr("US.1349"),
					Email: ptr("ana@example.com"), InstagramUserID: ptr("17841")}}
				o := contact.OptOut{Channel: c.channel, Kind: c.kind, Stop: true, Address: c.address}
				wantCall := c.column + " by " + c.channel + " " + c.address
				if byID {
					o.ContactID, o.Address = "ct_ana", ""
					wantCall = c.column + " by id ct_ana"
				}
				set := func(stop bool) *repo.Contact {
					t.Helper()
					o.Stop = stop
					got, err := contact.SetOptOut(t.Context(), st, event.Recorder{Clock: func() time.Time { return epoch }}, test, o, epoch)
					if c.column == "" {
						if err == nil {
							t.Errorf("%s opt-out on %s: got no error, want one", c.kind, c.channel)
						}
						return nil
					}
					if err != nil {
						t.Fatal(err)
					}
					return got
				}
				if got := set(true); c.column != "" && got == nil {
					t.Fatalf("first stop: got no change, want %s set", c.column)
				}
				if got := set(true); got != nil {
					t.Errorf("second stop: got a change, want none")
				}
				if got := set(false); c.column != "" && got == nil {
					t.Errorf("resume: got no change, want %s cleared", c.column)
				}
				if c.column == "" {
					if len(st.calls) != 0 || len(st.events) != 0 {
						t.Errorf("store: got calls %v and %d events, want none", st.calls, len(st.events))
					}
					return
				}
				if want := []string{wantCall, wantCall, wantCall}; !slices.Equal(st.calls, want) {
					t.Errorf("calls: got %v, want %v", st.calls, want)
				}
				if len(st.events) != 2 {
					t.Fatalf("events: got %d, want 2 (stop, resume; none for the repeat)", len(st.events))
				}
				for _, e := range st.events {
					if got := st.changed(t, e); !slices.Equal(got, []string{c.changed}) {
						t.Errorf("changed: got %v, want [%s]", got, c.changed)
					}
				}
			})
		}
	}
}
