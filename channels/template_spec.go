package channels

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// TemplateSpec is what a template takes when it is sent, read from the components
// Meta lists for it (GET /{waba_id}/message_templates):
// https://developers.facebook.com/docs/whatsapp/business-management-api/message-templates/components
type TemplateSpec struct {
	// Named: the template's parameter_format is NAMED ({{first_name}});
	// otherwise placeholders are numbered {{1}} to {{n}}.
	Named  bool
	Header *TemplateHeaderSpec
	Body   string
	// BodyParams are the body's placeholders in order: "1" to "n", or the
	// names, each once, in the order they first appear.
	BodyParams []string
	Buttons    []TemplateButtonSpec
}

// TemplateHeaderSpec is a header: Format TEXT (Text, with at most one
// placeholder in Params), IMAGE, VIDEO, DOCUMENT or LOCATION.
type TemplateHeaderSpec struct {
	Format string
	Text   string
	Params []string
}

// TemplateButtonSpec is a button of the template: Type QUICK_REPLY, URL,
// COPY_CODE, OTP, PHONE_NUMBER, FLOW, ... URLParam says a URL button's
// address ends in a placeholder (its suffix is given at send time); OTP
// says the button carries a one-time password (an authentication
// template's copy-code or one-tap button, listed as OTP or as URL).
type TemplateButtonSpec struct {
	Type     string
	Text     string
	URL      string
	URLParam bool
	OTP      bool
}

var (
	numbered = regexp.MustCompile(`\{\{\s*(\d+)\s*\}\}`)
	named    = regexp.MustCompile(`\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}`)
	// placeholder is either kind.
	placeholder = regexp.MustCompile(`\{\{\s*(\d+|[a-z_][a-z0-9_]*)\s*\}\}`)
)

type componentDef struct {
	Type    string `json:"type"`
	Format  string `json:"format"`
	Text    string `json:"text"`
	Buttons []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		URL     string `json:"url"`
		OTPType string `json:"otp_type"`
	} `json:"buttons"`
}

// ParseTemplateSpec reads a template's components. A template stored without
// components (known by its body text only) is a body of that text. A body
// whose placeholders do not follow the template's parameter_format (gaps
// in {{1}}..{{n}}, a name in a positional template) is an error.
func ParseTemplateSpec(components []byte, body, parameterFormat, category string) (*TemplateSpec, error) {
	spec := &TemplateSpec{Named: strings.EqualFold(parameterFormat, "NAMED"), Body: body}
	var defs []componentDef
	if len(components) > 0 && string(components) != "null" {
		if err := json.Unmarshal(components, &defs); err != nil {
			return nil, fmt.Errorf("template components: %w", err)
		}
	} else {
		defs = []componentDef{{Type: "BODY", Text: body}}
	}
	auth := strings.EqualFold(category, "AUTHENTICATION")
	for _, d := range defs {
		switch strings.ToUpper(d.Type) {
		case "HEADER":
			h := &TemplateHeaderSpec{Format: strings.ToUpper(d.Format), Text: d.Text}
			if h.Format == "" {
				h.Format = "TEXT"
			}
			var err error
			if h.Params, err = spec.params(d.Text); err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
			spec.Header = h
		case "BODY":
			spec.Body = d.Text
			var err error
			if spec.BodyParams, err = spec.params(d.Text); err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
		case "BUTTONS":
			for _, b := range d.Buttons {
				t := strings.ToUpper(b.Type)
				bs := TemplateButtonSpec{Type: t, Text: b.Text, URL: b.URL, URLParam: t == "URL" && strings.Contains(b.URL, "{{")}
				bs.OTP = t == "OTP" || (auth && t == "URL")
				spec.Buttons = append(spec.Buttons, bs)
			}
		}
	}
	return spec, nil
}

// params lists a text's placeholders as the template numbers or names them.
func (s *TemplateSpec) params(text string) ([]string, error) {
	if s.Named {
		var out []string
		seen := map[string]bool{}
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
		return out, nil
	}
	n, err := PositionalParams(text)
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out, nil
}

// PositionalParams is how many parameters a text takes. Its placeholders
// must be numbered {{1}} to {{n}} without gaps, as WhatsApp numbers them;
// any other numbering is an error, so a text that could index out of range
// is refused when it is stored, not when it is sent.
func PositionalParams(text string) (int, error) {
	seen := map[int]bool{}
	most := 0
	for _, m := range numbered.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > 1000 {
			return 0, fmt.Errorf("placeholder %s is out of range; placeholders are numbered from {{1}}", m[0])
		}
		seen[n], most = true, max(most, n)
	}
	for n := 1; n <= most; n++ {
		if !seen[n] {
			return 0, fmt.Errorf("placeholder {{%d}} is missing; placeholders are numbered {{1}} to {{%d}} without gaps", n, most)
		}
	}
	return most, nil
}

// RenderTemplate puts values in a text's placeholders ({{1}} or {{name}}, by
// the key the values are under). A placeholder without a value stays as
// written.
func RenderTemplate(text string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		if v, ok := values[placeholder.FindStringSubmatch(m)[1]]; ok {
			return v
		}
		return m
	})
}
