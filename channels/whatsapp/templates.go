package whatsapp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Template is a message template of a WABA as Meta lists it; Body is the
// text of its BODY component.
type Template struct {
	ID         string
	Name       string
	Language   string
	Status     string
	Category   string
	Body       string
	Components json.RawMessage
	// ParameterFormat is POSITIONAL or NAMED.
	ParameterFormat string
}

// Sync is what a WABA says of itself: its templates, and whether it may use
// the Marketing Messages API (ONBOARDED, ELIGIBLE, PENDING_*, INELIGIBLE_*;
// empty when Meta does not know the field).
type Sync struct {
	Templates         []Template
	MarketingMessages string
}

// maxPages bounds paging.next: 50 pages of 100 templates is far beyond a
// WABA's template limit, so more means a paging loop.
const maxPages = 50

type templateItem struct {
	ID         meta.ID         `json:"id"`
	Name       string          `json:"name"`
	Language   string          `json:"language"`
	Status     string          `json:"status"`
	Category   string          `json:"category"`
	Components json.RawMessage `json:"components"`
	// ParameterFormat is NAMED for {{name}} placeholders.
	ParameterFormat string `json:"parameter_format"`
}

type templatePage struct {
	Data   []templateItem `json:"data"`
	Paging struct {
		Next string `json:"next"`
	} `json:"paging"`
}

// SyncTemplates lists the WABA's templates (GET
// /{waba_id}/message_templates?limit=100, following paging.next) and its
// marketing_messages_onboarding_status ("" when it cannot be read).
func (a *Adapter) SyncTemplates(ctx context.Context, creds *channels.Credentials) (*Sync, error) {
	if creds == nil || creds.WABAID == "" || creds.AccessToken == "" {
		return nil, &channels.Refusal{Code: apierr.ChannelUnavailable, Reason: "The WhatsApp account has no WABA id or token to sync templates with."}
	}
	q := url.Values{"fields": {"name,status,language,category,components,parameter_format"}, "limit": {"100"}}
	next := a.Graph.URL(creds.WABAID, "message_templates") + "?" + q.Encode()
	sync := &Sync{Templates: []Template{}}
	for page := 0; next != ""; page++ {
		if page == maxPages {
			return nil, &meta.Error{HTTPStatus: http.StatusOK, Message: "the template list pages on past 50 pages"}
		}
		var p templatePage
		if err := a.Graph.Do(ctx, http.MethodGet, next, creds.AccessToken, "", nil, &p); err != nil {
			return nil, err
		}
		for _, it := range p.Data {
			sync.Templates = append(sync.Templates, Template{ID: string(it.ID), Name: it.Name, Language: it.Language,
				Status: it.Status, Category: it.Category, Body: bodyText(it.Components), Components: it.Components,
				ParameterFormat: strings.ToUpper(it.ParameterFormat)})
		}
		var err error
		if next, err = a.sameHost(p.Paging.Next); err != nil {
			return nil, err
		}
	}
	// The templates stand whatever the onboarding field answers: a token
	// without business_management (code 200), a timeout or a 5xx there
	// leaves the marketing status unknown ("": kept as it was), logged.
	status, err := a.MarketingStatus(ctx, creds)
	if err != nil {
		slog.Warn("whatsapp: marketing onboarding status not read; templates synced without it", "waba_id", creds.WABAID, "err", err)
	}
	sync.MarketingMessages = status
	return sync, nil
}

// MarketingStatus is GET /{waba_id}?fields=marketing_messages_onboarding_status;
// "" when the API version does not know the field (Meta code 100).
func (a *Adapter) MarketingStatus(ctx context.Context, creds *channels.Credentials) (string, error) {
	var out struct {
		Status string `json:"marketing_messages_onboarding_status"`
	}
	err := a.Graph.GetJSON(ctx, creds.AccessToken, url.Values{"fields": {"marketing_messages_onboarding_status"}}, &out, creds.WABAID)
	var e *meta.Error
	if errors.As(err, &e) && e.Code == 100 {
		return "", nil
	}
	return out.Status, err
}

// sameHost checks a paging URL: it must be on the client's own host (the
// bearer token goes nowhere else), and an access_token in its query is
// dropped (the header carries it).
func (a *Adapter) sameHost(next string) (string, error) {
	if next == "" {
		return "", nil
	}
	u, err := url.Parse(next)
	base, berr := url.Parse(a.Graph.BaseURL)
	if err != nil || berr != nil || u.Scheme != base.Scheme || u.Host != base.Host {
		return "", &meta.Error{HTTPStatus: http.StatusOK, Message: "paging.next leaves the Graph API host"}
	}
	q := u.Query()
	q.Del("access_token")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// bodyText is the text of the BODY component of a template definition.
func bodyText(components json.RawMessage) string {
	var cs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(components, &cs) != nil {
		return ""
	}
	for _, c := range cs {
		if strings.EqualFold(c.Type, "BODY") {
			return c.Text
		}
	}
	return ""
}

// Throughput tiers of a WhatsApp number at Meta, in messages a second:
// 80 by default (STANDARD), up to 1,000 after Meta's automatic upgrade
// (HIGH); a number shared with the WhatsApp Business app has 20
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/throughput).
var throughputLevels = map[string]int{"STANDARD": 80, "HIGH": 1000, "COEXISTENCE": 20}

// Throughput is GET /{phone_number_id}?fields=throughput: the number's
// tier (throughput.level) in messages a second; 0 when Meta names no
// tier it knows (the caller's default applies).
func (a *Adapter) Throughput(ctx context.Context, creds *channels.Credentials) (int, error) {
	if creds == nil || creds.PhoneNumberID == "" {
		return 0, nil
	}
	var out struct {
		Throughput struct {
			Level string `json:"level"`
		} `json:"throughput"`
	}
	err := a.Graph.GetJSON(ctx, creds.AccessToken, url.Values{"fields": {"throughput"}}, &out, creds.PhoneNumberID)
	return ThroughputOf(out.Throughput.Level), err
}

// ThroughputOf is a throughput.level's rate; 0 for an unknown level.
func ThroughputOf(level string) int { return throughputLevels[strings.ToUpper(level)] }
