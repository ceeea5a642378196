// Package apierr is the one table of error codes: each code a typed constant
// with its HTTP status and a default message. Every refusal the service makes
// names one of these codes; anything else is internal and answered as a 500.
package apierr

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// Code is an error code of the API contract.
type Code string

// The codes of the API reference's error table (docs/reference.md), of the
// providers' refusals, and the
// service's own (documented in docs/api.md).
const (
	InvalidAPIKey           Code = "invalid_api_key"
	KeyRevoked              Code = "key_revoked"
	KeyExpired              Code = "key_expired"
	KeyRolled               Code = "key_rolled"
	TestKeyRequired         Code = "test_key_required"
	StepUpRequired          Code = "step_up_required"
	PlanUpgradeRequired     Code = "plan_upgrade_required"
	AccountInactive         Code = "account_inactive"
	IPNotAllowed            Code = "ip_not_allowed"
	InsufficientScope       Code = "insufficient_scope"
	ChannelNotAllowed       Code = "channel_not_allowed"
	WebsiteNotAllowed       Code = "website_not_allowed"
	ContactsNeedAllWebsites Code = "contacts_need_all_websites"
	InvalidRequest          Code = "invalid_request"
	InvalidVersion          Code = "invalid_version"
	InvalidLimit            Code = "invalid_limit"
	InvalidCursor           Code = "invalid_cursor"
	InvalidPhone            Code = "invalid_phone"
	TextRequired            Code = "text_required"
	FromRequired            Code = "from_required"
	SubjectRequired         Code = "subject_required"
	InvalidEmail            Code = "invalid_email"
	WhatsappAccountRequired Code = "whatsapp_account_required"
	InvalidAttachment       Code = "invalid_attachment"
	FileNotFound            Code = "file_not_found"
	InvalidIdempotencyKey   Code = "invalid_idempotency_key"
	FileRejected            Code = "file_rejected"
	UnsupportedAttachment   Code = "unsupported_attachment"
	FileAlreadyUsed         Code = "file_already_used"
	AttachmentsTooLarge     Code = "attachments_too_large"
	EndpointDisabled        Code = "endpoint_disabled"
	EventExpired            Code = "event_expired"
	ConversationNotFound    Code = "conversation_not_found"
	MessageNotFound         Code = "message_not_found"
	ContactNotFound         Code = "contact_not_found"
	EventNotFound           Code = "event_not_found"
	EndpointNotFound        Code = "endpoint_not_found"
	DeliveryNotFound        Code = "delivery_not_found"
	RecoveryNotFound        Code = "recovery_not_found"
	KnowledgeEntryNotFound  Code = "knowledge_entry_not_found"
	IntegrationPaused       Code = "integration_paused"
	ContactExists           Code = "contact_exists"
	IdempotencyInProgress   Code = "idempotency_in_progress"
	WindowClosed            Code = "window_closed"
	NoWhatsappAccount       Code = "no_whatsapp_account"
	TemplateNotApproved     Code = "template_not_approved"
	TemplateNotMarketing    Code = "template_not_marketing"
	// TemplateParameters: a template send's parameters do not match the
	// template's components (missing, extra or of the wrong kind).
	TemplateParameters Code = "template_parameters_invalid"
	// MediaExpired: provider media can no longer be fetched (an Instagram
	// attachment's link expired).
	MediaExpired          Code = "media_expired"
	ConversationClosed    Code = "conversation_closed"
	SenderNotVerified     Code = "sender_not_verified"
	SenderNotFound        Code = "sender_not_found"
	RecipientSuppressed   Code = "recipient_suppressed"
	RecipientUnsubscribed Code = "recipient_unsubscribed"
	PrivateReplyExpired   Code = "private_reply_expired"
	PrivateReplyUsed      Code = "private_reply_used"
	PublicReplyNotAllowed Code = "public_reply_not_allowed"
	RecipientOptedOut     Code = "recipient_opted_out"
	NoRecipient           Code = "no_recipient"
	AgentNotFound         Code = "agent_not_found"
	IdempotencyKeyReused  Code = "idempotency_key_reused"
	RateLimited           Code = "rate_limited"
	APIQuotaExceeded      Code = "api_quota_exceeded"
	RecipientUnreachable  Code = "recipient_unreachable"
	// LimitExceeded is a field over a limit the provider documents (a
	// text's length, a button title, the number of rows), refused before
	// the provider is called; the message names the field.
	LimitExceeded         Code = "limit_exceeded"
	MarketingNotOnboarded Code = "marketing_not_onboarded"
	ChannelRateLimited    Code = "channel_rate_limited"
	ChannelUnavailable    Code = "channel_unavailable"
	ChannelRestricted     Code = "channel_restricted"
	RouteNotFound         Code = "route_not_found"
	MethodNotAllowed      Code = "method_not_allowed"
	FileLinkInvalid       Code = "file_link_invalid"
	// CrossOriginRefused: an admin page refuses a change another site's
	// page asked the browser for (its Basic credentials go along).
	CrossOriginRefused Code = "cross_origin_refused"
	// RequestTimeout: the body did not arrive within the read deadline.
	RequestTimeout Code = "request_timeout"
	// TooManyStreams: the key has as many event streams open as it may.
	TooManyStreams Code = "too_many_streams"
	InternalError  Code = "internal_error"
	// ServiceUnavailable is the service's own: a dependency it cannot serve
	// without (Postgres; Redis for the queue dashboard) is not answering.
	ServiceUnavailable Code = "service_unavailable"
	// ImageUnavailable: the email image proxy could not fetch the image.
	ImageUnavailable Code = "image_unavailable"
	// Website chat's visitor API.
	InvalidVisitorToken   Code = "invalid_visitor_token"
	ConversationNotClosed Code = "conversation_not_closed"
	AlreadyRated          Code = "already_rated"
	// The developer portal (GraphQL only).
	APIKeyNotFound Code = "api_key_not_found"
	// The app's people (docs/app.md): a member's role lacks the field
	// (Forbidden); a sign-in or step-up code that is wrong, expired or used
	// (InvalidCode); no live session (SignInRequired); members management.
	Forbidden      Code = "forbidden"
	InvalidCode    Code = "invalid_code"
	SignInRequired Code = "sign_in_required"
	MemberNotFound Code = "member_not_found"
	MemberExists   Code = "member_exists"
	LastOwner      Code = "last_owner"
)

// Entry is a code's HTTP status and the message shown when a refusal gives
// none of its own.
type Entry struct {
	Status  int
	Message string
}

var table = map[Code]Entry{
	InvalidAPIKey:           {401, "The API key is missing, malformed or unknown."},
	Forbidden:               {403, "Your role may not do this."},
	InvalidCode:             {401, "The code is wrong, expired or already used; ask for a new one."},
	SignInRequired:          {401, "Sign in first."},
	MemberNotFound:          {404, "No member of the workspace has that id."},
	MemberExists:            {409, "A member already has that email address."},
	LastOwner:               {409, "The workspace's last active owner cannot be switched off or given another role."},
	KeyRevoked:              {401, "This API key was revoked."},
	KeyExpired:              {401, "This API key is past its expiry."},
	KeyRolled:               {401, "This API key was rolled and its grace period has ended."},
	TestKeyRequired:         {403, "Simulated messages need a test key."},
	StepUpRequired:          {403, "A fresh emailed code is needed."},
	PlanUpgradeRequired:     {403, "API keys and webhooks are on paid plans."},
	AccountInactive:         {403, "The workspace is suspended or closed."},
	IPNotAllowed:            {403, "The request comes from an address outside the key's allowlist."},
	InsufficientScope:       {403, "The key lacks the permission this endpoint needs."},
	ChannelNotAllowed:       {403, "The key is limited to other channels."},
	WebsiteNotAllowed:       {403, "The key is limited to other websites."},
	ContactsNeedAllWebsites: {403, "Contacts need a key not limited to some websites."},
	InvalidRequest:          {400, "The body or parameters do not make sense together."},
	InvalidVersion:          {400, "The version header names a version this service does not serve."},
	InvalidLimit:            {400, "limit must be between 1 and 100."},
	InvalidCursor:           {400, "starting_after is not a cursor this list returned."},
	InvalidPhone:            {400, "The phone number lacks its country code."},
	TextRequired:            {400, "The message has no content for its channel."},
	FromRequired:            {400, "A new email needs from, a verified address."},
	SubjectRequired:         {400, "A new email needs a subject."},
	InvalidEmail:            {400, "to is not an email address."},
	WhatsappAccountRequired: {400, "The key reaches several WhatsApp numbers; give whatsapp_account_id."},
	InvalidAttachment:       {400, "Each attachment needs file_id, or filename with content_base64."},
	FileNotFound:            {400, "No uploaded file has that id."},
	InvalidIdempotencyKey:   {400, "The Idempotency-Key is longer than 255 characters."},
	FileRejected:            {400, "The file type is not allowed, the file is empty, or it is over 10 MB."},
	UnsupportedAttachment:   {400, "Instagram takes images, video and audio only."},
	FileAlreadyUsed:         {400, "An uploaded file attaches to one message only."},
	AttachmentsTooLarge:     {400, "Attachments exceed 10 MB in total per message."},
	EndpointDisabled:        {400, "The webhook endpoint is off or deleted."},
	EventExpired:            {400, "The event is past the retention period."},
	ConversationNotFound:    {404, "No such conversation is visible to this key."},
	MessageNotFound:         {404, "No such message is visible to this key."},
	ContactNotFound:         {404, "No such contact."},
	EventNotFound:           {404, "No such event."},
	EndpointNotFound:        {404, "No such webhook endpoint."},
	APIKeyNotFound:          {404, "No such API key in this workspace."},
	DeliveryNotFound:        {404, "No such webhook delivery."},
	RecoveryNotFound:        {404, "No such webhook recovery."},
	KnowledgeEntryNotFound:  {404, "No such knowledge entry."},
	IntegrationPaused:       {409, "An agent paused integration replies on this conversation."},
	ContactExists:           {409, "A contact with that email or phone exists."},
	IdempotencyInProgress:   {409, "A request with this Idempotency-Key is still in progress."},
	WindowClosed:            {422, "Over 24 hours since the customer last wrote."},
	LimitExceeded:           {422, "A field is over a limit the channel's provider documents."},
	NoWhatsappAccount:       {422, "This key reaches no connected WhatsApp number."},
	TemplateNotApproved:     {422, "The template is not approved."},
	TemplateNotMarketing:    {422, "Marketing messages need a MARKETING template."},
	TemplateParameters:      {422, "The template's parameters do not match its components."},
	MediaExpired:            {422, "The provider's link to the media expired; it cannot be fetched again."},
	ConversationClosed:      {422, "The conversation is closed."},
	SenderNotVerified:       {422, "The sender's domain is not verified."},
	SenderNotFound:          {422, "No email account has that address."},
	RecipientSuppressed:     {422, "Mail to this address bounced permanently or was reported as spam."},
	RecipientUnsubscribed:   {422, "The recipient unsubscribed."},
	PrivateReplyExpired:     {422, "The comment is over 7 days old."},
	PrivateReplyUsed:        {422, "The comment already has its one private reply."},
	PublicReplyNotAllowed:   {422, "The comment takes no public reply (a comment on a live video)."},
	RecipientOptedOut:       {422, "The recipient opted out of this channel."},
	NoRecipient:             {422, "The conversation has no contact to write to."},
	AgentNotFound:           {422, "No active agent of the workspace has that id."},
	IdempotencyKeyReused:    {422, "This Idempotency-Key was used with another request."},
	RateLimited:             {429, "Too many requests."},
	InvalidVisitorToken:     {401, "The visitor token is missing or unknown."},
	ConversationNotClosed:   {422, "The chat is still open; it can be rated once closed."},
	AlreadyRated:            {409, "The chat already has its rating."},
	APIQuotaExceeded:        {429, "This month's API messages are used up."},
	RecipientUnreachable:    {422, "The provider cannot deliver to this recipient."},
	MarketingNotOnboarded:   {422, "The WhatsApp account is not onboarded for marketing messages."},
	ChannelRateLimited:      {429, "The provider is limiting this channel; retry after Retry-After."},
	ChannelUnavailable:      {503, "The channel's provider is not available; nothing was sent."},
	ChannelRestricted:       {403, "The provider blocked the sending account (permissions or a policy restriction); nothing was sent."},
	RouteNotFound:           {404, "No such route."},
	MethodNotAllowed:        {405, "This route does not take that method."},
	FileLinkInvalid:         {403, "The file link is invalid or expired."},
	CrossOriginRefused:      {403, "This admin page refuses changes asked for by another site's page."},
	RequestTimeout:          {408, "The request body did not arrive in time."},
	TooManyStreams:          {429, "This key has as many event streams open as it may; close one first."},
	ImageUnavailable:        {404, "The remote image could not be fetched."},
	ServiceUnavailable:      {503, "A service msgsvc depends on is not answering; retry after Retry-After."},
	InternalError:           {500, "Something went wrong on our side; quote the request id when you contact us."},
}

// Lookup returns a code's entry; ok is false for a code the table lacks.
func Lookup(c Code) (e Entry, ok bool) {
	e, ok = table[c]
	return e, ok
}

// Codes lists every code of the table, sorted.
func Codes() []Code {
	out := make([]Code, 0, len(table))
	for c := range table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Error is a refusal the caller can act on: a code of the table and a message
// for a person. RetryAfter, when set, becomes the Retry-After header.
type Error struct {
	Code       Code
	Message    string
	RetryAfter time.Duration
	// Purpose is the step-up purpose a step_up_required asks a code for.
	Purpose string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// New returns an Error with a formatted message; with no format the table's
// message is used.
func New(code Code, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if format == "" {
		msg = table[code].Message
	}
	return &Error{Code: code, Message: msg}
}

// As returns the Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
