package repo

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// columnList is the column list a query selects into one row struct, and
// the FROM clause it selects from.
type columnList struct {
	row     any
	columns string
	from    string
}

// columnLists names, for every struct the package scans rows into, the
// column list its queries select. A new row struct must be added here.
var columnLists = map[string]columnList{
	"Contact":               {Contact{}, contactColumns, "contacts"},
	"Conversation":          {Conversation{}, conversationColumns, conversationFrom},
	"InboxRow":              {InboxRow{}, inboxRowColumns, conversationFrom},
	"InboxUnread":           {InboxUnread{}, inboxUnreadColumns, "conversations c CROSS JOIN (SELECT ''::text AS member_id) me"},
	"Note":                  {Note{}, noteColumns, "conversation_notes"},
	"Message":               {Message{}, messageColumns, "messages"},
	"MessageRef":            {MessageRef{}, messageRefColumns, "messages"},
	"Template":              {Template{}, templateColumns, "templates"},
	"EmailDomain":           {EmailDomain{}, emailDomainColumns, "email_domains"},
	"File":                  {File{}, fileColumns, "files"},
	"IdempotencyRecord":     {IdempotencyRecord{}, idempotencyColumns, "idempotency_keys"},
	"SendCreations":         {SendCreations{}, sendCreationsColumns, "send_creations"},
	"Event":                 {Event{}, eventColumns, "events"},
	"Workspace":             {Workspace{}, workspaceColumns, "workspaces"},
	"APIKey":                {APIKey{}, apiKeyColumns, "api_keys"},
	"Website":               {Website{}, websiteColumns, "websites"},
	"Account":               {Account{}, accountColumns, "channel_accounts"},
	"Agent":                 {Agent{}, agentColumns, "agents"},
	"MemberCode":            {MemberCode{}, memberCodeColumns, "member_codes"},
	"MemberSession":         {MemberSession{}, memberSessionColumns, "member_sessions"},
	"WebhookEndpoint":       {WebhookEndpoint{}, webhookEndpointColumns, "webhook_endpoints"},
	"WebhookDelivery":       {WebhookDelivery{}, webhookDeliveryColumns, "webhook_deliveries"},
	"DueWebhookDelivery":    {DueWebhookDelivery{}, dueWebhookDeliveryColumns, "webhook_deliveries"},
	"DueVerification":       {DueVerification{}, dueVerificationColumns, "webhook_endpoints"},
	"OutboxEmail":           {OutboxEmail{}, outboxEmailColumns, "outbox_emails"},
	"KnowledgeEntry":        {KnowledgeEntry{}, knowledgeColumns, "knowledge_entries"},
	"AgentLoad":             {AgentLoad{}, agentLoadColumns, "agents a"},
	"Scoped":                {Scoped{}, scopedColumns, "conversations"},
	"AIWork":                {AIWork{}, aiWorkColumns, "ai_work"},
	"InstagramComment":      {InstagramComment{}, instagramCommentColumns, "instagram_comments"},
	"FailedInboundMail":     {FailedInboundMail{}, failedInboundMailColumns, failedInboundMailFrom},
	"FailedProviderHook":    {FailedProviderHook{}, failedProviderHookColumns, "provider_hooks"},
	"ProviderHook":          {ProviderHook{}, providerHookColumns, "provider_hooks"},
	"nullAccount":           {nullAccount{}, accountColumns, "channel_accounts"},
	"nullContact":           {nullContact{}, contactColumns, "contacts"},
	"conversationForSend":   {conversationForSend{}, conversationForSendColumns, conversationForSendFrom},
	"MessageInConversation": {MessageInConversation{}, messageInConversationColumns, messageInConversationFrom},
	"VisitorContact":        {VisitorContact{}, visitorContactColumns, visitorContactFrom},
	"WebhookAttemptLog":     {WebhookAttemptLog{}, webhookAttemptLogColumns, "webhook_attempts a"},
	"WebhookRecovery":       {WebhookRecovery{}, webhookRecoveryColumns, "webhook_recoveries"},
	// A delivery with its endpoint's row and its event's envelope and time.
	"ClaimedWebhookDelivery": {ClaimedWebhookDelivery{}, claimedDeliveryColumns, "webhook_deliveries d" + claimedDeliveryJoins},
}

// resultNames is the names a column list gives its result columns: the
// alias after AS, else the column without its table alias.
func resultNames(columns string) []string {
	var out []string
	for _, c := range strings.Split(columns, ",") {
		c = strings.TrimSpace(c)
		if i := strings.LastIndex(strings.ToUpper(c), " AS "); i >= 0 {
			c = c[i+4:]
		} else if i := strings.LastIndex(c, "."); i >= 0 {
			c = c[i+1:]
		}
		out = append(out, strings.Trim(strings.TrimSpace(c), `"`))
	}
	return out
}

// dbTags is the db tags of a struct's fields, in order, with those of an
// embedded struct, and those of a nested row struct after its field's tag
// and a dot (as sqlx maps them).
func dbTags(row any) []string {
	return fieldTags(reflect.TypeOf(row))
}

func fieldTags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("db")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fieldTags(f.Type)...)
		} else if inner := nestedTags(f.Type); tag != "" && len(inner) > 0 {
			for _, t := range inner {
				out = append(out, tag+"."+t)
			}
		} else if tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// nestedTags is the db tags of a nested row struct, none for any other type
// (time.Time is a struct without them).
func nestedTags(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	return fieldTags(t)
}

// TestColumnListsMatchStructs: a column list selects every field of its row
// struct, nothing else and nothing twice, so no field is silently left zero
// and no column lacks a field (sqlx refuses those).
func TestColumnListsMatchStructs(t *testing.T) {
	for name, cl := range columnLists {
		t.Run(name, func(t *testing.T) {
			cols, tags := resultNames(cl.columns), dbTags(cl.row)
			for _, tag := range tags {
				if !slices.Contains(cols, tag) {
					t.Errorf("field %s.%s has no column in its column list", name, tag)
				}
			}
			seen := map[string]bool{}
			for _, c := range cols {
				if !slices.Contains(tags, c) {
					t.Errorf("column %q of the %s column list has no field in %s", c, name, name)
				}
				if seen[c] {
					t.Errorf("column %q twice in the %s column list", c, name)
				}
				seen[c] = true
			}
		})
	}
}

func TestResultNames(t *testing.T) {
	got := resultNames("c.id, name,\n\tct.email AS contact_email")
	if want := []string{"id", "name", "contact_email"}; !slices.Equal(got, want) {
		t.Fatalf("resultNames = %q, want %q", got, want)
	}
	if got := qualified("m", "id,\n\ttext"); got != "m.id, m.text" {
		t.Fatalf("qualified = %q", got)
	}
	got = resultNames(nested("k", "k.id,\n\tct.name AS contact_name"))
	if want := []string{"k.id", "k.contact_name"}; !slices.Equal(got, want) {
		t.Fatalf("resultNames(nested) = %q, want %q", got, want)
	}
}

// TestNullRowsCopyEveryField: an account or contact read where it may be
// absent comes out with every field its nullable row scanned, so a field
// added to Account or Contact (and so, by TestColumnListsMatchStructs, to
// its nullable row) is not left zero by the copy.
func TestNullRowsCopyEveryField(t *testing.T) {
	var acc nullAccount
	fillPointers(t, &acc)
	var ct nullContact
	fillPointers(t, &ct)
	ct.EmailSuppressed = JSONB(`{"reason":"bounce"}`)
	if (nullAccount{}).account() != nil || (nullContact{}).contact() != nil {
		t.Fatal("an absent row (NULL id) came out present")
	}
	for name, v := range map[string]any{"Account": *acc.account(), "Contact": *ct.contact()} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s left zero", name, rv.Type().Field(i).Name)
			}
		}
	}
}

// fillPointers points every pointer field of a struct at a value that is
// not its type's zero.
func fillPointers(t *testing.T, row any) {
	t.Helper()
	rv := reflect.ValueOf(row).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.Kind() != reflect.Pointer {
			continue
		}
		p := reflect.New(f.Type().Elem())
		switch e := p.Elem(); e.Kind() {
		case reflect.String:
			e.SetString("x")
		case reflect.Bool:
			e.SetBool(true)
		case reflect.Struct: // time.Time
			e.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
		default:
			t.Fatalf("field %s: fill a %s", rv.Type().Field(i).Name, e.Kind())
		}
		f.Set(p)
	}
}

// starSelect matches a query that selects every column: SELECT *, t.*,
// RETURNING *; count(*) is not one.
var starSelect = regexp.MustCompile(`(?i)\b(select|returning)\s+(distinct\s+)?\*|\b\w+\.\*|,\s*\*\s*(,|from\b)`)

func TestStarSelectPattern(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t":                    true,
		"select m.* from m":                  true,
		"UPDATE t SET a = 1 RETURNING *":     true,
		"UPDATE t d SET a = 1 RETURNING d.*": true,
		"SELECT id, * FROM t":                true,
		"SELECT count(*) FROM t":             false,
		"SELECT id, name FROM t":             false,
	} {
		if got := starSelect.MatchString(q); got != want {
			t.Errorf("%q: matched %v, want %v", q, got, want)
		}
	}
}

// repoSource parses the package's non-test files.
func repoSource(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// TestNoStarInSQL: no query selects or returns *; a column added by a newer
// binary's migration must not break one still running (rolling deploys).
func TestNoStarInSQL(t *testing.T) {
	fset, files := repoSource(t)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			if m := starSelect.FindString(s); m != "" {
				t.Errorf("%s: %q selects every column; list the columns (a const per row struct, checked by TestColumnListsMatchStructs)",
					fset.Position(lit.Pos()), m)
			}
			return true
		})
	}
}

// awaitingColumnLists are row structs of the live channels whose queries name
// their columns inline (no *, which TestNoStarInSQL checks) but have no
// shared column-list const yet, so their fields are not cross-checked here.
// Each is to move into columnLists; the list may only shrink.
var awaitingColumnLists = map[string]bool{
	"DomainKey": true, "MailRoute": true, "EmailMessageID": true, "ThreadHead": true, "InboundMail": true,
	"AccountProvider": true, "ProviderMessage": true,
	"WebsiteWidget": true, "Visitor": true, "Rating": true, "PendingMessage": true, "ChatState": true,
}

// TestEveryRowStructHasColumnList: every struct with db tags is in
// columnLists, so its fields are checked against the columns it selects.
func TestEveryRowStructHasColumnList(t *testing.T) {
	_, files := repoSource(t)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag != nil && strings.Contains(field.Tag.Value, `db:"`) {
					if _, ok := columnLists[spec.Name.Name]; !ok && !awaitingColumnLists[spec.Name.Name] {
						t.Errorf("row struct %s has no entry in columnLists (columns_test.go): add its column list const", spec.Name.Name)
					}
					break
				}
			}
			return true
		})
	}
}
