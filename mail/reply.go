package mail

import (
	"encoding/base64"
	"net/url"
	"strings"

	gomail "github.com/emersion/go-message/mail"
)

// Reply is where an answer to a mail goes and how it threads.
type Reply struct {
	// To and Cc are the recipients: the list (from List-Post) and the
	// author in copy, or the author alone when the mail came from no list.
	To, Cc []string
	// InReplyTo and References thread the answer under the mail.
	InReplyTo  string
	References []string
	// Subject is the mail's subject, for the answer's "Re: ...".
	Subject string
	// ListID is the mail's List-Id, when it came through a list.
	ListID string
}

// ReplyFor reads the headers of the mail being answered (a patch or its
// cover letter) and says where the answer goes. A List-Post mailto:
// address makes the answer go to the list with the author copied, as list
// etiquette asks; "List-Post: NO" (a list that takes no posts) and mail
// from no list go to the author (Reply-To, else From) alone.
func ReplyFor(h gomail.Header) Reply {
	var r Reply
	if id, err := h.MessageID(); err == nil {
		r.InReplyTo = id
	}
	refs, _ := h.MsgIDList("References")
	if len(refs) == 0 {
		refs, _ = h.MsgIDList("In-Reply-To")
	}
	r.References = refs
	r.Subject, _ = h.Subject()
	r.ListID = strings.TrimSpace(h.Get("List-Id"))

	author := ""
	for _, k := range []string{"Reply-To", "From"} {
		if as, err := h.AddressList(k); err == nil && len(as) > 0 {
			author = as[0].Address
			break
		}
	}
	list := listPostAddress(h.Get("List-Post"))
	switch {
	case list != "":
		r.To = []string{list}
		if author != "" && !strings.EqualFold(author, list) {
			r.Cc = []string{author}
		}
	case author != "":
		r.To = []string{author}
	}
	return r
}

// listPostAddress returns the mailto: address of a List-Post header
// ("<mailto:dev@example.org>", possibly with ?subject=...), or "" for "NO"
// and other forms.
func listPostAddress(v string) string {
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		part = strings.TrimSuffix(strings.TrimPrefix(part, "<"), ">")
		u, err := url.Parse(part)
		if err != nil || !strings.EqualFold(u.Scheme, "mailto") {
			continue
		}
		addr := u.Opaque
		if addr == "" {
			addr = u.Path
		}
		if a, err := url.PathUnescape(addr); err == nil {
			addr = a
		}
		if strings.Contains(addr, "@") {
			return addr
		}
	}
	return ""
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
