package mail

import (
	"errors"
	"strings"
)

// ReturnPath chooses the domain of an outbound mail's envelope sender,
// bounces+{msg_id}@{return path}: where the receiving servers send their
// bounces. It must be a domain whose MX is msgsvc's listener, or bounces
// reach the sending domain's own mailboxes and are never read.
type ReturnPath struct {
	// Template is MSGSVC_SMTP_RETURN_PATH_DOMAIN: a domain holding
	// "{domain}" once, such as "bounces.{domain}"; "" is the sending domain
	// itself. A domain's own return_path_domain comes first.
	Template string
}

// placeholder is the sending domain in a template.
const placeholder = "{domain}"

// CheckReturnPathTemplate accepts "" or a domain name holding {domain}
// once ("bounces.{domain}").
func CheckReturnPathTemplate(t string) error {
	if t == "" {
		return nil
	}
	if strings.Count(t, placeholder) != 1 {
		return errors.New("must hold {domain} once, such as bounces.{domain}")
	}
	return CheckDomainName(strings.Replace(t, placeholder, "example.com", 1))
}

// CheckDomainName accepts a lower-case host name of at least two labels.
func CheckDomainName(d string) error {
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return errors.New("must be a domain name such as bounces.example.com")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return errors.New("must be a domain name such as bounces.example.com")
		}
		for _, c := range l {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				return errors.New("must be a domain name in lower case (letters, digits, '-' and '.')")
			}
		}
	}
	return nil
}

// Domain is the return path of a sending domain: its configured one, else
// the template's, else the sending domain.
func (r ReturnPath) Domain(sending, configured string) string {
	switch {
	case configured != "":
		return configured
	case r.Template == "":
		return sending
	}
	return strings.Replace(r.Template, placeholder, sending, 1)
}

// Sending lists the sending domains a bounce to returnPath may be about:
// returnPath itself (the return path of a domain with none, and of mail
// sent before one was set) and the domain the template wraps, when
// returnPath has the template's shape. Domains whose configured return
// path is returnPath are found by the query (repo.BounceRoutes).
func (r ReturnPath) Sending(returnPath string) []string {
	returnPath = strings.ToLower(returnPath)
	out := []string{returnPath}
	if r.Template == "" {
		return out
	}
	prefix, suffix, _ := strings.Cut(r.Template, placeholder)
	if inner, ok := strings.CutPrefix(returnPath, prefix); ok {
		if inner, ok = strings.CutSuffix(inner, suffix); ok && inner != "" {
			out = append(out, inner)
		}
	}
	return out
}
