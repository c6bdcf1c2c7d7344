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

	var from, replyTo string
	if as, err := h.AddressList("From"); err == nil && len(as) > 0 {
		from = as[0].Address
	}
	if as, err := h.AddressList("Reply-To"); err == nil && len(as) > 0 {
		replyTo = as[0].Address
	}
	r.To, r.Cc = Recipients(from, replyTo, h.Get("List-Post"), "")
	return r
}

// Recipients says where the answer to a mail goes, from its sender (From),
// Reply-To and List-Post, as list etiquette asks: to the list with the
// author in Cc. The list is List-Post's mailto: address, or list when the
// mail has no List-Post; "List-Post: NO" (a list that takes no posts) and
// mail from no list are answered to the author alone. The author is
// Reply-To when set, unless the list rewrote Reply-To to itself, else From.
// Addresses are bare ("dev@example.org").
func Recipients(from, replyTo, listPost, list string) (to, cc []string) {
	listAddr := list
	if strings.TrimSpace(listPost) != "" {
		listAddr = listPostAddress(listPost)
	}
	author := bare(replyTo)
	if author == "" || strings.EqualFold(author, listAddr) {
		author = bare(from)
	}
	switch {
	case listAddr != "":
		to = []string{listAddr}
		if author != "" && !strings.EqualFold(author, listAddr) {
			cc = []string{author}
		}
	case author != "":
		to = []string{author}
	}
	return to, cc
}

// bare returns the first address of an address list header value, or "".
func bare(v string) string {
	if strings.TrimSpace(v) == "" {
		return ""
	}
	if as, err := gomail.ParseAddressList(v); err == nil && len(as) > 0 {
		return as[0].Address
	}
	return ""
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
