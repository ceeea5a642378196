package credentials

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/seal"
)

func TestCheck(t *testing.T) {
	wa := func(edit func(*channels.Credentials)) channels.Credentials {
		c := channels.Credentials{PhoneNumberID: "106540352242922", WABAID: "102290129340398", AccessToken: "EAAG"}
		edit(&c)
		return c
	}
	for _, tc := range []struct {
		channel string
		c       channels.Credentials
		want    string // "" accepts; else a word of the reason
	}{
		{"whatsapp", wa(func(*channels.Credentials) {}), ""},
		{"whatsapp", wa(func(c *channels.Credentials) { c.AccessToken = "" }), "access_token"},
		{"whatsapp", wa(func(c *channels.Credentials) { c.PhoneNumberID = "+1555" }), "phone_number_id"},
		{"whatsapp", wa(func(c *channels.Credentials) { c.WABAID = "" }), "waba_id"},
		{"whatsapp", wa(func(c *channels.Credentials) { c.IGUserID = "1" }), "only"},
		{"instagram", channels.Credentials{IGUserID: "17841405822304914", AccessToken: "IGQV"}, ""},
		{"instagram", channels.Credentials{Login: "facebook", PageID: "1234", AccessToken: "EAAG"}, ""},
		{"instagram", channels.Credentials{Login: "facebook", IGUserID: "1234", AccessToken: "EAAG"}, "page_id"},
		{"instagram", channels.Credentials{Login: "tiktok", IGUserID: "1", AccessToken: "x"}, "login"},
		{"email", channels.Credentials{AccessToken: "x"}, "no provider"},
	} {
		err := Check(tc.channel, &tc.c)
		var bad *Invalid
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v: refused: %v", tc.channel, tc.c, err)
		case tc.want != "" && (!errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %+v: got %v, want a reason naming %s", tc.channel, tc.c, err, tc.want)
		}
	}
	c := channels.Credentials{IGUserID: "1", AccessToken: "x"}
	if err := Check("instagram", &c); err != nil || c.Login != "instagram" || Key("instagram", &c) != "1" {
		t.Errorf("default login: %+v %v", c, err)
	}
}

func TestSealOpensOnlyForItsAccount(t *testing.T) {
	key, err := seal.New("", "a-secret-of-sixteen+")
	if err != nil {
		t.Fatal(err)
	}
	v := Vault{Key: key}
	in := channels.Credentials{PhoneNumberID: "106540352242922", WABAID: "102290129340398", AccessToken: "EAAGsecret"}
	row, err := v.Seal("ws_a", "wa_main", "whatsapp", in, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(row.Sealed, "EAAGsecret") || row.ProviderKey != in.PhoneNumberID {
		t.Fatalf("row %+v", row)
	}
	out, err := v.Open(row)
	if err != nil || *out != in {
		t.Fatalf("opened %+v %v", out, err)
	}
	row.AccountID = "wa_other"
	if _, err := v.Open(row); err == nil {
		t.Error("a sealed value opened for another account")
	}
}
