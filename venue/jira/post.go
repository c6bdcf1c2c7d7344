package jira

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/retry"
)

// CommentLimit is the longest comment JIRA stores, in characters.
const CommentLimit = 32767

// Marker is the anchor macro that starts the comment for key.
func Marker(key string) string {
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return "{anchor:perfbot-" + b.String() + "}"
}

type comment struct {
	ID         string     `json:"id"`
	Self       string     `json:"self,omitempty"`
	Body       string     `json:"body"`
	Properties []property `json:"properties,omitempty"`
	Author     *user      `json:"author,omitempty"`
}

// user is an author as JIRA writes it: a user name on Server and Data
// Center, an account ID on Cloud.
type user struct {
	Name      string `json:"name"`
	AccountID string `json:"accountId"`
}

// property is a comment's entity property, as JIRA's REST API writes it.
type property struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// propertyKey names the comment property that carries the answer's key.
// JIRA Cloud stores comments as rich text and may drop the {anchor} macro
// the marker is written in, so the property is what finds a comment
// again there; the marker still finds comments written before properties
// were used.
const propertyKey = "perfbot"

// answerProperty is the property that marks the comment for key.
func answerProperty(key string) property {
	v, _ := json.Marshal(map[string]string{"answer": key})
	return property{Key: propertyKey, Value: v}
}

// answers reports whether the comment carries the property for key or
// the marker, on a line of its own or (comments written before) at the
// start.
func (c *comment) answers(key, marker string) bool {
	for _, p := range c.Properties {
		if p.Key != propertyKey {
			continue
		}
		var v struct {
			Answer string `json:"answer"`
		}
		if json.Unmarshal(p.Value, &v) == nil && v.Answer == key {
			return true
		}
	}
	body := strings.TrimSpace(c.Body)
	if strings.HasPrefix(body, marker) {
		return true
	}
	for _, l := range strings.Split(body, "\n") {
		if strings.TrimSpace(l) == marker {
			return true
		}
	}
	return false
}

// Post writes msg as a comment on the issue where ("KEY-123"), editing the
// comment that carries msg.Key's marker when one exists, and attaches
// msg.Attachments first, so that the comment can show the charts. A rerun
// replaces perfbot's earlier attachments of the same names (uploaded by
// its own account) instead of adding more: the new file is uploaded, then
// the old one deleted; a file identical to the one already there is kept.
// It returns a link to the comment.
func (c *Client) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	where := to.Key
	if to.Venue != target.JIRA || where == "" {
		return "", fmt.Errorf("jira target %q: want an issue key such as STORE-123", to.Where())
	}
	if msg.Key == "" {
		return "", fmt.Errorf("jira %s: message has no key; without one a rerun cannot find its comment", where)
	}
	stale, err := c.attach(ctx, where, msg.Attachments)
	if err != nil {
		return "", err
	}
	body := CommentBody(msg)
	var id string
	err = c.call(ctx, "jira: comment on "+where, func(ctx context.Context) error {
		var err error
		id, err = c.upsertComment(ctx, where, msg.Key, body)
		return err
	})
	if err != nil {
		return "", err
	}
	link := fmt.Sprintf("%s/browse/%s?focusedCommentId=%s&page=com.atlassian.jira.plugin.system.issuetabpanels:comment-tabpanel#comment-%s", c.base, where, id, id)
	for _, a := range stale {
		err := c.call(ctx, "jira: delete old attachment "+a.Filename+" of "+where, func(ctx context.Context) error {
			req, err := c.api.NewRequestWithContext(ctx, http.MethodDelete, "rest/api/2/attachment/"+a.ID, nil)
			if err != nil {
				return err
			}
			return c.do(req, nil)
		})
		if err != nil {
			return link, err
		}
	}
	return link, nil
}

// upsertComment edits the comment that answers key or adds one, with the
// property that finds it again. Looking before each try keeps a retried
// creation from posting twice.
func (c *Client) upsertComment(ctx context.Context, issue, key, body string) (string, error) {
	old, err := c.findComment(ctx, issue, key)
	if err != nil {
		return "", err
	}
	in := struct {
		Body       string     `json:"body"`
		Properties []property `json:"properties"`
	}{body, []property{answerProperty(key)}}
	var out comment
	if old != nil {
		if old.Body == body && len(old.Properties) > 0 {
			return old.ID, nil
		}
		req, err := c.api.NewRequestWithContext(ctx, http.MethodPut, "rest/api/2/issue/"+issue+"/comment/"+old.ID, in)
		if err != nil {
			return "", err
		}
		if err := c.do(req, &out); err != nil {
			return "", err
		}
		return out.ID, nil
	}
	req, err := c.api.NewRequestWithContext(ctx, http.MethodPost, "rest/api/2/issue/"+issue+"/comment", in)
	if err != nil {
		return "", err
	}
	if err := c.do(req, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// findComment pages through the issue's comments (GET
// /rest/api/2/issue/{key}/comment?expand=properties) for the one that
// answers key: written by perfbot's own account (GET
// /rest/api/2/myself), carrying the perfbot property or the marker. A
// comment by anyone else is never perfbot's, whatever it carries.
func (c *Client) findComment(ctx context.Context, issue, key string) (*comment, error) {
	me, err := c.myself(ctx)
	if err != nil {
		return nil, err
	}
	marker := Marker(key)
	for start := 0; ; {
		var page struct {
			StartAt    int       `json:"startAt"`
			MaxResults int       `json:"maxResults"`
			Total      int       `json:"total"`
			Comments   []comment `json:"comments"`
		}
		q := url.Values{"startAt": {fmt.Sprint(start)}, "maxResults": {"100"}, "expand": {"properties"}}
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, "rest/api/2/issue/"+issue+"/comment?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		if err := c.do(req, &page); err != nil {
			return nil, err
		}
		for i := range page.Comments {
			if cm := &page.Comments[i]; cm.Author != nil && me.is(*cm.Author) && cm.answers(key, marker) {
				return &page.Comments[i], nil
			}
		}
		start = page.StartAt + len(page.Comments)
		if len(page.Comments) == 0 || start >= page.Total {
			return nil, nil
		}
	}
}

// issueAttachment is a file on an issue, as the issue's fields list it.
type issueAttachment struct {
	ID       string `json:"id"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	Content  string `json:"content"`
	Author   struct {
		Name      string `json:"name"`
		AccountID string `json:"accountId"`
	} `json:"author"`
}

// attach uploads the attachments and returns perfbot's earlier ones of
// the same names, to delete once the comment points at the new ones. An
// earlier one identical to the new file is kept and nothing is uploaded,
// so a retry adds nothing.
func (c *Client) attach(ctx context.Context, issue string, atts []answer.Attachment) ([]issueAttachment, error) {
	if len(atts) == 0 {
		return nil, nil
	}
	me, err := c.myself(ctx)
	if err != nil {
		return nil, err
	}
	var have struct {
		Fields struct {
			Attachment []issueAttachment `json:"attachment"`
		} `json:"fields"`
	}
	err = c.call(ctx, "jira: attachments of "+issue, func(ctx context.Context) error {
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, "rest/api/2/issue/"+issue+"?fields=attachment", nil)
		if err != nil {
			return err
		}
		return c.do(req, &have)
	})
	if err != nil {
		return nil, err
	}
	var stale []issueAttachment
	for _, a := range atts {
		var mine []issueAttachment
		for _, h := range have.Fields.Attachment {
			if h.Filename == a.Name && me.wrote(h) {
				mine = append(mine, h)
			}
		}
		same := false
		for _, h := range mine {
			if !same && h.Size == int64(len(a.Data)) {
				data, err := c.download(ctx, h)
				if err != nil {
					return nil, err
				}
				if bytes.Equal(data, a.Data) {
					same = true
					continue
				}
			}
			stale = append(stale, h)
		}
		if same {
			// Keep the identical file; any other of the name goes.
			continue
		}
		err := c.call(ctx, "jira: attach "+a.Name+" to "+issue, func(ctx context.Context) error {
			return c.upload(ctx, issue, a)
		})
		if err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// download reads an attachment's content.
func (c *Client) download(ctx context.Context, a issueAttachment) ([]byte, error) {
	var data []byte
	err := c.call(ctx, "jira: read attachment "+a.Filename, func(ctx context.Context) error {
		if !strings.HasPrefix(a.Content, c.base+"/") {
			return fmt.Errorf("attachment %s: content link %q is not on %s", a.ID, a.Content, c.base)
		}
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, a.Content, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "*/*")
		resp, err := c.api.Do(req, nil)
		if resp == nil {
			if err == nil {
				err = errors.New("no response")
			}
			return retry.Transient(fmt.Errorf("GET %s: %w", req.URL.Path, err))
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			se := &StatusError{Method: req.Method, Path: req.URL.Path, Code: resp.StatusCode}
			if retry.HTTPStatusTransient(resp.StatusCode) {
				return retry.Transient(se)
			}
			return se
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		return err
	})
	return data, err
}

// identity is the account perfbot signs in as.
type identity struct{ name, accountID string }

// wrote reports whether the account uploaded a.
func (me identity) wrote(a issueAttachment) bool {
	return me.is(user{Name: a.Author.Name, AccountID: a.Author.AccountID})
}

// is reports whether u is the account: the same account ID (Cloud), or
// the same user name (Server and Data Center).
func (me identity) is(u user) bool {
	return me.accountID != "" && u.AccountID == me.accountID || me.name != "" && u.Name == me.name
}

// myself asks who perfbot is (GET /rest/api/2/myself), once.
func (c *Client) myself(ctx context.Context) (identity, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me != (identity{}) {
		return me, nil
	}
	var out struct {
		Name      string `json:"name"`
		AccountID string `json:"accountId"`
	}
	err := c.call(ctx, "jira: who am I", func(ctx context.Context) error {
		req, err := c.api.NewRequestWithContext(ctx, http.MethodGet, "rest/api/2/myself", nil)
		if err != nil {
			return err
		}
		return c.do(req, &out)
	})
	if err != nil {
		return identity{}, err
	}
	me = identity{name: out.Name, accountID: out.AccountID}
	c.mu.Lock()
	c.me = me
	c.mu.Unlock()
	return me, nil
}

// quoteEscaper escapes a form-data parameter as mime/multipart does.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

// upload sends one file as POST /rest/api/2/issue/{key}/attachments,
// multipart field "file", with the X-Atlassian-Token: no-check header JIRA
// requires against cross-site requests.
func (c *Client) upload(ctx context.Context, issue string, a answer.Attachment) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s"`, quoteEscaper.Replace(a.Name)))
	ct := a.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	fw, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	if _, err := fw.Write(a.Data); err != nil {
		return err
	}
	if err := mw.Close(); err != nil {
		return err
	}
	req, err := c.api.NewMultiPartRequestWithContext(ctx, http.MethodPost, "rest/api/2/issue/"+issue+"/attachments", &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-Atlassian-Token", "no-check")
	var out []struct {
		ID string `json:"id"`
	}
	return c.do(req, &out)
}
