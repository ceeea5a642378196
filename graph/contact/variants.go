package contact

import "strings"

// PhoneVariants are the other forms WhatsApp may give a number than the
// one a business stored (E.164): Brazil's mobile numbers with and without
// the ninth digit after the area code (+55 AA 9XXXX-XXXX is wa_id
// 55AAXXXXXXXX for accounts older than the ninth digit), and Argentina's
// mobile numbers with and without the 9 after +54 (wa_id 549…). A
// customer's message from one form continues the contact of the other.
func PhoneVariants(e164 string) []string {
	d := strings.TrimPrefix(e164, "+")
	switch {
	case strings.HasPrefix(d, "55") && len(d) == 12 && d[4] >= '6' && d[4] <= '9':
		return []string{"+" + d[:4] + "9" + d[4:]}
	case strings.HasPrefix(d, "55") && len(d) == 13 && d[4] == '9':
		return []string{"+" + d[:4] + d[5:]}
	case strings.HasPrefix(d, "549") && len(d) == 13:
		return []string{"+54" + d[3:]}
	case strings.HasPrefix(d, "54") && len(d) == 12 && d[2] != '9':
		return []string{"+549" + d[2:]}
	}
	return nil
}
