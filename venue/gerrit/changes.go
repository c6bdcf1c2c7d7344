package gerrit

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfbot/perfbot/venue"
	"github.com/perfbot/perfbot/venue/retry"
)

// Account is Gerrit's AccountInfo (as DETAILED_ACCOUNTS gives it).
type Account struct {
	ID       int    `json:"_account_id"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Username string `json:"username"`
}

// Login is the name perfbot's trigger policy matches: the username, else
// the email, else the numeric id.
func (a Account) Login() string {
	switch {
	case a.Username != "":
		return a.Username
	case a.Email != "":
		return a.Email
	case a.ID != 0:
		return strconv.Itoa(a.ID)
	}
	return ""
}

// Revision is Gerrit's RevisionInfo.
type Revision struct {
	Number   int     `json:"_number"`
	Ref      string  `json:"ref"`
	Kind     string  `json:"kind"`
	Uploader Account `json:"uploader"`
}

// Change is Gerrit's ChangeInfo with the current revision
// (o=CURRENT_REVISION).
type Change struct {
	ID              string              `json:"id"` // "project~branch~Change-Id" or "project~NUMBER"
	Project         string              `json:"project"`
	Branch          string              `json:"branch"`
	ChangeID        string              `json:"change_id"`
	Subject         string              `json:"subject"`
	Status          string              `json:"status"`
	Number          int                 `json:"_number"`
	Updated         Timestamp           `json:"updated"`
	Owner           Account             `json:"owner"`
	CurrentRevision string              `json:"current_revision"`
	Revisions       map[string]Revision `json:"revisions"`
	MoreChanges     bool                `json:"_more_changes"`
}

// PatchSet is the number of the current revision (0 when unknown).
func (c Change) PatchSet() int { return c.Revisions[c.CurrentRevision].Number }

// Timestamp is Gerrit's time format, "2006-01-02 15:04:05.000000000" in
// UTC.
type Timestamp struct{ time.Time }

// timeLayout is how Gerrit writes times.
const timeLayout = "2006-01-02 15:04:05.999999999"

// UnmarshalJSON reads a Gerrit timestamp.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("timestamp %s: %w", b, err)
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.ParseInLocation(timeLayout, s, time.UTC)
	if err != nil {
		return fmt.Errorf("timestamp %q: want %q", s, "2006-01-02 15:04:05.000000000")
	}
	t.Time = v
	return nil
}

// ChangeMessage is Gerrit's ChangeMessageInfo.
type ChangeMessage struct {
	ID       string    `json:"id"`
	Author   Account   `json:"author"`
	Date     Timestamp `json:"date"`
	Message  string    `json:"message"`
	Tag      string    `json:"tag"`
	Revision int       `json:"_revision_number"`
}

// Query returns the changes matching q, with their current revision and
// owner (GET /changes/?q=Q&o=CURRENT_REVISION&o=DETAILED_ACCOUNTS), most
// recently updated first, paging with S= while Gerrit says
// _more_changes, at most limit of them.
func (c *Client) Query(ctx context.Context, q string, limit int) ([]Change, error) {
	var out []Change
	for {
		v := url.Values{"q": {q}, "o": {"CURRENT_REVISION", "DETAILED_ACCOUNTS"}, "n": {"100"}}
		if len(out) > 0 {
			v.Set("S", strconv.Itoa(len(out)))
		}
		var page []Change
		err := c.call(ctx, "gerrit: query changes", func(ctx context.Context) error {
			return c.get(ctx, "changes/?"+v.Encode(), &page)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) == 0 || !page[len(page)-1].MoreChanges || len(out) >= limit {
			break
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// changePath is the API path of change id (a number, "project~NUMBER" or
// "project~branch~Change-Id"), escaped as one path segment.
func changePath(id string) string {
	return "changes/" + url.PathEscape(id)
}

// Messages returns the messages of change id, oldest first (GET
// /changes/ID/messages).
func (c *Client) Messages(ctx context.Context, id string) ([]ChangeMessage, error) {
	var ms []ChangeMessage
	err := c.call(ctx, "gerrit: messages of "+id, func(ctx context.Context) error {
		return c.get(ctx, changePath(id)+"/messages", &ms)
	})
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Date.Before(ms[j].Date.Time) })
	return ms, err
}

// NotPatchError is a patch download that is not a patch. It is permanent:
// perfbot must not apply it.
type NotPatchError struct {
	Change string
	Rev    int
	Reason string
}

func (e *NotPatchError) Error() string {
	return fmt.Sprintf("patch set %d of change %s is not a patch: %s", e.Rev, e.Change, e.Reason)
}

// PatchURL is the API address of one patch set's patch, for the job's
// record (it needs credentials; jobs carry the patch itself).
func (c *Client) PatchURL(id string, ps int) string {
	return c.endpoint(fmt.Sprintf("%s/revisions/%d/patch", changePath(id), ps))
}

// Patch downloads patch set ps of change id as a git format-patch mail
// (GET /changes/ID/revisions/PS/patch, which Gerrit sends base64-encoded).
// The patch holds the revision's own commit against its parent, so that
// a change on top of another in a relation chain is measured alone. What
// does not decode or is not a unified diff is a *NotPatchError.
func (c *Client) Patch(ctx context.Context, id string, ps int) (string, error) {
	var out string
	err := c.call(ctx, fmt.Sprintf("gerrit: patch set %d of %s", ps, id), func(ctx context.Context) error {
		data, err := c.send(ctx, "GET", fmt.Sprintf("%s/revisions/%d/patch", changePath(id), ps), nil, "text/plain")
		if err != nil {
			return err
		}
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), ""))
		if err != nil {
			return &NotPatchError{Change: id, Rev: ps, Reason: "the answer is not base64: " + err.Error()}
		}
		if why := venue.NotPatch(string(raw)); why != "" {
			return &NotPatchError{Change: id, Rev: ps, Reason: why}
		}
		out = string(raw)
		return nil
	})
	return out, err
}

// InGroup reports whether account (a numeric id) is a member of group (a
// group's UUID, id or name), directly or through included groups (GET
// /groups/GROUP/members/?recursive). perfbot's account must be able to
// see the group.
func (c *Client) InGroup(ctx context.Context, group string, account int) (bool, error) {
	var members []Account
	err := c.call(ctx, "gerrit: members of "+group, func(ctx context.Context) error {
		return c.get(ctx, "groups/"+url.PathEscape(group)+"/members/?recursive", &members)
	})
	if err != nil {
		return false, err
	}
	for _, m := range members {
		if m.ID == account {
			return true, nil
		}
	}
	return false, nil
}

// Check shows that the credentials work with one authenticated read and
// no retry (GET /accounts/self) and returns who perfbot is signed in as;
// errors never hold the password.
func (c *Client) Check(ctx context.Context) (string, error) {
	var me Account
	if err := c.get(ctx, "accounts/self", &me); err != nil {
		return "", fmt.Errorf("gerrit: %w", retry.Redact(err, c.pass))
	}
	who := me.Login()
	if who == "" {
		who = "an unnamed account"
	}
	return "signed in as " + who, nil
}
