package send

import (
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

// The WhatsApp marketing opt-out refuses marketing sends and MARKETING
// templates, nothing else; opt_outs.whatsapp refuses everything
// (docs/whatsapp.md).
func TestMarketingOptOutRule(t *testing.T) {
	phone := "+15550001234"
	marketing := &repo.Template{Category: "MARKETING"}
	utility := &repo.Template{Category: "UTILITY"}
	for _, c := range []struct {
		name          string
		stoppedAds    bool
		stoppedAll    bool
		marketingSend bool
		template      *repo.Template
		refused       bool
	}{
		{"reply", true, false, false, nil, false},
		{"utility template", true, false, false, utility, false},
		{"MARKETING template", true, false, false, marketing, true},
		{"marketing endpoint", true, false, true, marketing, true},
		{"MARKETING template, not opted out", false, false, false, marketing, false},
		{"reply after STOP", false, true, false, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := &sendRequest{channel: "whatsapp", marketing: c.marketingSend}
			tgt := &sendTarget{contact: &repo.Contact{Phone: &phone, MarketingOptOutWhatsapp: c.stoppedAds, OptOutWhatsapp: c.stoppedAll}}
			err := recipientRules(req, tgt, &sendContent{template: c.template})
			want := apierr.Code("")
			if c.refused {
				want = apierr.RecipientOptedOut
			}
			apierrtest.Want(t, err, want, "")
		})
	}
}
