// Package target is where an answer goes: a venue and a place in it,
// parsed once where the text enters perfbot (a --post flag, a config
// post: list, a stored job or outbox row) and passed on as a value. Every
// venue's rules for its address are checked here, so the venue clients
// read fields and never parse text. It imports only the standard library:
// any package may hold a Target.
package target

import (
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The venues a target may name.
const (
	GitHub      = "github"
	GitLab      = "gitlab"
	JIRA        = "jira"
	ReviewBoard = "reviewboard"
	Gerrit      = "gerrit"
	Mail        = "mail"
)

// Target is a parsed destination, written "github:OWNER/REPO#N" (or
// "github:#N"), "gitlab:GROUP/PROJECT!N" (or "gitlab:!N"), "jira:KEY-123",
// "reviewboard:ID", "gerrit:CHANGE[/PATCHSET]" or
// "mail:ADDRESS[,ADDRESS][?cc=ADDRESS[,ADDRESS]]". Only the fields of its
// venue are set. The zero Target is no destination.
type Target struct {
	Venue string // GitHub, GitLab, JIRA, ReviewBoard, Gerrit or Mail

	// Repo is GitHub's OWNER/REPO or GitLab's GROUP/PROJECT (subgroups
	// included). Empty in the short forms "#N" and "!N": the repository
	// then comes from config (see WithRepo).
	Repo string
	// Number is the pull request (GitHub), the merge request's IID
	// (GitLab) or the review request (Review Board).
	Number int

	// Change is a Gerrit change as its REST API names it: a number
	// (1234), "PROJECT~1234" or "PROJECT~BRANCH~I<Change-Id>".
	Change string
	// PatchSet is the Gerrit patch set; 0 means the change's current one.
	PatchSet int

	// Key is the JIRA issue key, such as STORE-123.
	Key string

	// To and Cc are the mail recipients; To has one at least.
	To, Cc []mail.Address
}

// venues lists the venues in the order the errors name them.
const venues = "github, gitlab, jira, reviewboard, gerrit or mail"

// Parse reads a destination, checking the address by its venue's rules.
func Parse(s string) (Target, error) {
	v, where, ok := strings.Cut(s, ":")
	if !ok || where == "" {
		return Target{}, fmt.Errorf("post target %q: want VENUE:ADDRESS, such as github:OWNER/REPO#N, gitlab:GROUP/PROJECT!N, jira:KEY-123, reviewboard:ID, gerrit:CHANGE[/PATCHSET] or mail:ADDRESS", s)
	}
	if !utf8.ValidString(s) {
		// JSON, which stores targets, would not keep the bytes.
		return Target{}, fmt.Errorf("post target %q: not valid UTF-8", s)
	}
	var t Target
	var err error
	switch v {
	case GitHub:
		t, err = parseGitHub(where)
	case GitLab:
		t, err = parseGitLab(where)
	case JIRA:
		t, err = parseJIRA(where)
	case ReviewBoard:
		t, err = parseReviewBoard(where)
	case Gerrit:
		t, err = parseGerrit(where)
	case Mail:
		t, err = parseMail(where)
	default:
		return Target{}, fmt.Errorf("post target %q: unknown venue %q (want %s)", s, v, venues)
	}
	if err != nil {
		return Target{}, err
	}
	t.Venue = v
	return t, nil
}

// MustParse is Parse for targets known to be good; it panics on an error.
// It is for tests and constants.
func MustParse(s string) Target {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// ParseList parses each of ss, stopping at the first error.
func ParseList(ss []string) ([]Target, error) {
	if ss == nil {
		return nil, nil
	}
	ts := make([]Target, 0, len(ss))
	for _, s := range ss {
		t, err := Parse(s)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// Strings is the text of each of ts.
func Strings(ts []Target) []string {
	if ts == nil {
		return nil
	}
	ss := make([]string, len(ts))
	for i, t := range ts {
		ss[i] = t.String()
	}
	return ss
}

// PR is the target of a GitHub pull request; repo is OWNER/REPO, or ""
// for the configured repository.
func PR(repo string, n int) Target { return Target{Venue: GitHub, Repo: repo, Number: n} }

// MR is the target of a GitLab merge request; project is GROUP/PROJECT,
// or "" for the configured project.
func MR(project string, iid int) Target { return Target{Venue: GitLab, Repo: project, Number: iid} }

// Issue is the target of a JIRA issue.
func Issue(key string) Target { return Target{Venue: JIRA, Key: key} }

// ReviewRequest is the target of a Review Board review request.
func ReviewRequest(id int) Target { return Target{Venue: ReviewBoard, Number: id} }

// Change is the target of a Gerrit change's patch set (0: the current one).
func Change(change string, patchSet int) Target {
	return Target{Venue: Gerrit, Change: change, PatchSet: patchSet}
}

// MailTo is the mail target for the bare addresses to with cc in copy.
func MailTo(to, cc []string) Target {
	t := Target{Venue: Mail}
	for _, a := range to {
		t.To = append(t.To, mail.Address{Address: a})
	}
	for _, a := range cc {
		t.Cc = append(t.Cc, mail.Address{Address: a})
	}
	return t
}

// Equal reports whether t and u are the same destination.
func (t Target) Equal(u Target) bool { return t.String() == u.String() }

// IsZero reports whether t is no destination.
func (t Target) IsZero() bool { return t.Venue == "" }

// String is the target as Parse reads it: "VENUE:" and Where.
func (t Target) String() string {
	if t.IsZero() {
		return ""
	}
	return t.Venue + ":" + t.Where()
}

// Where is the address within the venue, the text after "VENUE:":
// "OWNER/REPO#N", "GROUP/PROJECT!N", "KEY-123", "ID",
// "CHANGE[/PATCHSET]" or "TO[,TO][?cc=CC[,CC]]".
func (t Target) Where() string {
	switch t.Venue {
	case GitHub:
		return t.Repo + "#" + strconv.Itoa(t.Number)
	case GitLab:
		return t.Repo + "!" + strconv.Itoa(t.Number)
	case JIRA:
		return t.Key
	case ReviewBoard:
		return strconv.Itoa(t.Number)
	case Gerrit:
		if t.PatchSet > 0 {
			return t.Change + "/" + strconv.Itoa(t.PatchSet)
		}
		return t.Change
	case Mail:
		s := addressList(t.To, true)
		if len(t.Cc) > 0 {
			s += "?" + url.Values{"cc": {addressList(t.Cc, false)}}.Encode()
		}
		return s
	}
	return ""
}

// addressList writes as as a mail target lists them: bare addresses
// as they are, named ones as "Name" <address>. In the To part, which
// ends at the first "?", a name that would be written with a "?" (one
// encoded for its non-ASCII letters) is left out, as Parse leaves it.
func addressList(as []mail.Address, to bool) string {
	var b strings.Builder
	for i, a := range as {
		if i > 0 {
			b.WriteByte(',')
		}
		s := a.String()
		if a.Name == "" || to && strings.Contains(s, "?") {
			s = a.Address
		}
		b.WriteString(s)
	}
	return b.String()
}

// WithRepo fills the repository of a short-form GitHub ("#N") or GitLab
// ("!N") target from config: repo is venues.github.repo or
// venues.gitlab.project. Any other target comes back as it is. It fails
// when the short form has no repository to take, or repo is malformed.
func (t Target) WithRepo(repo string) (Target, error) {
	if t.Repo != "" || t.Venue != GitHub && t.Venue != GitLab {
		return t, nil
	}
	switch {
	case t.Venue == GitHub && repo == "":
		return t, fmt.Errorf("a bare #N needs venues.github.repo (OWNER/REPO)")
	case t.Venue == GitLab && repo == "":
		return t, fmt.Errorf("a bare !N needs venues.gitlab.project (GROUP/PROJECT)")
	case t.Venue == GitHub && !validGitHubRepo(repo):
		return t, fmt.Errorf("github target %q: want OWNER/REPO#N, such as acme/store#42", repo+t.Where())
	case t.Venue == GitLab && !ValidGitLabProject(repo):
		return t, fmt.Errorf("gitlab target %q: want GROUP/PROJECT!N, such as acme/store!42", repo+t.Where())
	}
	t.Repo = repo
	return t, nil
}

// Owner and Name split a GitHub target's Repo, OWNER/REPO.
func (t Target) Owner() string { o, _, _ := strings.Cut(t.Repo, "/"); return o }

// Name is the repository's name without its owner (see Owner).
func (t Target) Name() string { _, n, _ := strings.Cut(t.Repo, "/"); return n }

// MarshalText writes String, so a Target is stored (JSON, database
// columns) as the text it is parsed from.
func (t Target) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses text as Parse does; empty text is the zero Target.
func (t *Target) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*t = Target{}
		return nil
	}
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

func parseGitHub(where string) (Target, error) {
	repo, num, ok := strings.Cut(where, "#")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || repo != "" && !validGitHubRepo(repo) {
		return Target{}, fmt.Errorf("github target %q: want OWNER/REPO#N, such as acme/store#42 (or #N with venues.github.repo)", where)
	}
	return Target{Repo: repo, Number: n}, nil
}

// validGitHubRepo reports whether r is OWNER/REPO.
func validGitHubRepo(r string) bool {
	owner, name, ok := strings.Cut(r, "/")
	return ok && owner != "" && name != "" && !strings.Contains(name, "/")
}

func parseGitLab(where string) (Target, error) {
	project, num, ok := strings.Cut(where, "!")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || project != "" && !ValidGitLabProject(project) {
		return Target{}, fmt.Errorf("gitlab target %q: want GROUP/PROJECT!N, such as acme/store!42 (or !N with venues.gitlab.project)", where)
	}
	return Target{Repo: project, Number: n}, nil
}

// ValidGitLabProject reports whether p is a GROUP/PROJECT path: a
// namespace (groups and subgroups) and a name, each a letter, digit or
// underscore followed by those, dots and dashes; no "..", no ".git" at
// the end.
func ValidGitLabProject(p string) bool {
	parts := strings.Split(p, "/")
	if len(parts) < 2 || strings.Contains(p, "..") || strings.HasSuffix(p, ".git") {
		return false
	}
	for _, s := range parts {
		if s == "" || s[0] == '.' || s[0] == '-' {
			return false
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
				return false
			}
		}
	}
	return true
}

func parseJIRA(where string) (Target, error) {
	if !ValidIssueKey(where) {
		return Target{}, fmt.Errorf("jira target %q: want an issue key such as STORE-123", where)
	}
	return Target{Key: where}, nil
}

// ValidIssueKey reports whether k is a JIRA issue key: a project key
// (an upper-case letter, then upper-case letters, digits and
// underscores), a dash and a number without leading zeros.
func ValidIssueKey(k string) bool {
	i := strings.LastIndexByte(k, '-')
	if i <= 0 || i == len(k)-1 {
		return false
	}
	proj, num := k[:i], k[i+1:]
	if proj[0] < 'A' || proj[0] > 'Z' || num[0] == '0' {
		return false
	}
	for i := 1; i < len(proj); i++ {
		c := proj[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return false
		}
	}
	return true
}

func parseReviewBoard(where string) (Target, error) {
	id, err := strconv.Atoi(where)
	if err != nil || id <= 0 {
		return Target{}, fmt.Errorf("reviewboard target %q: want a review request number, such as 1234", where)
	}
	return Target{Number: id}, nil
}

// parseGerrit reads CHANGE[/PATCHSET]: CHANGE is a change number (1234),
// "project~1234" or "project~branch~I<Change-Id>"; PATCHSET 0 means the
// current one.
func parseGerrit(where string) (Target, error) {
	change, ps := where, 0
	if i := strings.LastIndexByte(where, '/'); i >= 0 {
		if n, err := strconv.Atoi(where[i+1:]); err == nil && where[i+1] != '+' && where[i+1] != '-' {
			if n <= 0 {
				return Target{}, fmt.Errorf("gerrit target %q: patch set %d, want 1 or more", where, n)
			}
			change, ps = where[:i], n
		}
	}
	if change == "" || strings.ContainsAny(change, " \t\r\n?#") {
		return Target{}, fmt.Errorf("gerrit target %q: want CHANGE[/PATCHSET], CHANGE a number such as 1234 or PROJECT~BRANCH~I<Change-Id>", where)
	}
	if _, err := strconv.Atoi(change); err != nil && !strings.Contains(change, "~") {
		return Target{}, fmt.Errorf("gerrit target %q: change %q is neither a number nor PROJECT~BRANCH~I<Change-Id>", where, change)
	}
	return Target{Change: change, PatchSet: ps}, nil
}

// parseMail reads "TO[,TO...][?cc=CC[,CC...]]", as a mailto: URI puts
// copies.
func parseMail(where string) (Target, error) {
	addrs, query, hasQuery := strings.Cut(where, "?")
	to, err := parseRecipients(addrs)
	if err != nil {
		return Target{}, err
	}
	for i, a := range to {
		if a.Name != "" && strings.Contains(a.String(), "?") {
			// Written back, the name would end the To part early.
			to[i].Name = ""
		}
	}
	t := Target{To: to}
	if hasQuery {
		q, err := url.ParseQuery(query)
		if err != nil {
			return Target{}, fmt.Errorf("mail target %q: %w", where, err)
		}
		for k := range q {
			if k != "cc" {
				return Target{}, fmt.Errorf("mail target %q: unknown field %q (want ?cc=ADDRESS[,ADDRESS])", where, k)
			}
		}
		if v := q.Get("cc"); v != "" {
			if t.Cc, err = parseRecipients(v); err != nil {
				return Target{}, err
			}
		}
	}
	return t, nil
}

// parseRecipients reads "a@b,c@d" (display names allowed).
func parseRecipients(list string) ([]mail.Address, error) {
	as, err := mail.ParseAddressList(list)
	if err != nil || len(as) == 0 {
		return nil, fmt.Errorf("mail target %q: want ADDRESS[,ADDRESS], such as dev@lists.example.org", list)
	}
	out := make([]mail.Address, len(as))
	for i, a := range as {
		out[i] = *a
	}
	return out, nil
}
