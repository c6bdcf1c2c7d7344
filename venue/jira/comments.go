package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/target"
)

// Comment is a comment on an issue, as intake reads it for commands.
type Comment struct {
	ID string
	// Author is who wrote it: the user name on Server and Data Center,
	// the account ID on Cloud.
	Author  string
	Created time.Time
	// Own is true for a comment written by perfbot's own account (GET
	// /rest/api/2/myself): never a command.
	Own bool
	// Lines are the lines a reader sees as text: on Server and Data
	// Center the wiki markup outside {code}, {noformat} and {quote}
	// blocks and "bq." lines (WikiLines); on Cloud the text of the
	// Atlassian Document Format body outside code blocks, quotes and
	// inline code (ADFLines).
	Lines []string
}

// apiComment is a comment as GET .../issue/{key}/comment and the search's
// comment field write it: body is wiki markup (a JSON string) from
// /rest/api/2, an Atlassian Document Format document from /rest/api/3.
type apiComment struct {
	ID      string          `json:"id"`
	Author  *user           `json:"author"`
	Body    json.RawMessage `json:"body"`
	Created string          `json:"created"`
}

// commentPage is a page of comments: GET .../issue/{key}/comment, and the
// search's comment field.
type commentPage struct {
	StartAt    int          `json:"startAt"`
	MaxResults int          `json:"maxResults"`
	Total      int          `json:"total"`
	Comments   []apiComment `json:"comments"`
}

// comment reads c, telling perfbot's own by me.
func (c apiComment) comment(me identity) (Comment, error) {
	out := Comment{ID: c.ID}
	out.Created, _ = time.Parse(timeLayout, c.Created)
	if c.Author != nil {
		out.Author = nonEmpty(c.Author.Name, c.Author.AccountID)
		out.Own = me.is(*c.Author)
	}
	body := strings.TrimSpace(string(c.Body))
	switch {
	case body == "" || body == "null":
	case body[0] == '"':
		var wiki string
		if err := json.Unmarshal(c.Body, &wiki); err != nil {
			return Comment{}, fmt.Errorf("comment %s: body: %w", c.ID, err)
		}
		out.Lines = WikiLines(wiki)
	case body[0] == '{':
		var doc ADFNode
		if err := json.Unmarshal(c.Body, &doc); err != nil {
			return Comment{}, fmt.Errorf("comment %s: body is not an Atlassian Document Format document: %w", c.ID, err)
		}
		out.Lines = ADFLines(doc)
	default:
		return Comment{}, fmt.Errorf("comment %s: body %.40q: want wiki markup or an Atlassian Document Format document", c.ID, body)
	}
	return out, nil
}

// comments reads the comments of issue key: the page the search returned
// (first), and the rest, when the site cut it short, from GET
// /rest/api/3/issue/{key}/comment on Cloud (Atlassian Document Format) or
// /rest/api/2/issue/{key}/comment on Server and Data Center (wiki markup),
// oldest first.
func (c *Client) comments(ctx context.Context, d Deployment, key string, first commentPage) ([]Comment, error) {
	if len(first.Comments) == 0 && first.Total == 0 {
		return nil, nil
	}
	me, err := c.myself(ctx)
	if err != nil {
		return nil, err
	}
	if !target.ValidIssueKey(key) {
		return nil, fmt.Errorf("jira search: issue key %q: want a key such as STORE-123", key)
	}
	api := "rest/api/2"
	if d == Cloud {
		api = "rest/api/3"
	}
	var out []Comment
	page := first
	for fetched := false; ; fetched = true {
		for _, ac := range page.Comments {
			cm, err := ac.comment(me)
			if err != nil {
				return nil, fmt.Errorf("jira %s: %w", key, err)
			}
			out = append(out, cm)
		}
		// A site may embed none of the comments in the search; a page
		// fetched empty ends the list.
		next := page.StartAt + len(page.Comments)
		if (fetched && len(page.Comments) == 0) || next >= page.Total {
			return out, nil
		}
		q := url.Values{"startAt": {strconv.Itoa(next)}, "maxResults": {"100"}, "orderBy": {"created"}}
		page = commentPage{}
		if err := c.get(ctx, api+"/issue/"+key+"/comment?"+q.Encode(), &page); err != nil {
			return nil, err
		}
	}
}

// wikiBlock matches the wiki-markup macros that open and close a block
// shown as other than text: {code}, {code:java}, {noformat}, {quote}.
var wikiBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{(code|noformat|quote)(:[^}]*)?\}`) })

// WikiLines returns the lines of a wiki-markup comment (JIRA Server's and
// Data Center's) that are shown as text: what lies inside {code},
// {noformat} and {quote} blocks, and "bq." quoted lines, are left out.
// Inside a {code} or {noformat} block other macros are literal; the block
// ends at its own closing tag.
func WikiLines(text string) []string {
	var out []string
	open := "" // the block the text is inside
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		var b strings.Builder
		rest := line
		for {
			loc := wikiBlock().FindStringSubmatchIndex(rest)
			if loc == nil {
				if open == "" {
					b.WriteString(rest)
				}
				break
			}
			tag := rest[loc[2]:loc[3]]
			switch {
			case open == "":
				b.WriteString(rest[:loc[0]])
				open = tag
			case open == tag && loc[4] < 0:
				open = ""
			}
			rest = rest[loc[1]:]
		}
		l := b.String()
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "bq. ") || t == "bq." {
			continue
		}
		out = append(out, l)
	}
	return out
}

// ADFNode is a node of an Atlassian Document Format document, as JIRA
// Cloud's REST API v3 writes comment bodies: {"type": "doc", "version": 1,
// "content": [...]}.
type ADFNode struct {
	Type    string    `json:"type"`
	Text    string    `json:"text,omitempty"`
	Content []ADFNode `json:"content,omitempty"`
	Marks   []struct {
		Type string `json:"type"`
	} `json:"marks,omitempty"`
	Attrs map[string]any `json:"attrs,omitempty"`
}

// ADFLines returns the lines of an Atlassian Document Format document that
// are shown as text: each paragraph, heading and list item is a line, cut
// at hard breaks; code blocks, block quotes and text marked as inline
// code are left out; a mention, emoji or status shows its text.
func ADFLines(doc ADFNode) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		out = append(out, cur.String())
		cur.Reset()
	}
	var walk func(n ADFNode)
	walk = func(n ADFNode) {
		switch n.Type {
		case "codeBlock", "blockquote":
			return
		case "text":
			for _, m := range n.Marks {
				if m.Type == "code" {
					return
				}
			}
			cur.WriteString(n.Text)
			return
		case "hardBreak":
			flush()
			return
		case "mention", "emoji", "status":
			if s, ok := n.Attrs["text"].(string); ok {
				cur.WriteString(s)
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
		if n.Type == "paragraph" || n.Type == "heading" {
			flush()
		}
	}
	walk(doc)
	if cur.Len() > 0 {
		flush()
	}
	return out
}
