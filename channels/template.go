package channels

// TemplateParameters are the values a template send fills in: the
// header's, the body's (in the order of the template's placeholders) and
// the buttons' that take one.
type TemplateParameters struct {
	Header  *TemplateHeader
	Body    []TemplateParam
	Buttons []TemplateButton
}

// TemplateParam is one text parameter; Name is set for a template with
// named parameters ({{first_name}}).
type TemplateParam struct {
	Name string
	Text string
}

// TemplateHeader is a header's parameter: Kind text (Text), image, video or
// document (Link or MediaID, Filename for a document) or location.
type TemplateHeader struct {
	Kind     string
	Text     TemplateParam
	Link     string
	MediaID  string
	Filename string
	Location *Location
}

// TemplateButton is the parameter of the button at Index (0-based, in the
// template's order): SubType quick_reply (Payload), url (Text: the URL's
// suffix, or a one-time password) or copy_code (CouponCode).
type TemplateButton struct {
	Index      int
	SubType    string
	Payload    string
	Text       string
	CouponCode string
}
