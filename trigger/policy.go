// Package trigger decides who may start a benchmark run of an unmerged
// patch: GitHub users by their permission on the repository or by name,
// JIRA and Review Board users by name, mailing-list senders by address or
// domain. Everyone else gets a polite refusal to post instead.
//
// The package is pure logic: the venue code looks the user's permission
// up and posts the refusal.
package trigger

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"sync"
)

// Policy says who may start a run of an unmerged patch. Merged code
// (nightly runs, a branch) needs no permission.
type Policy struct {
	// AllowUsers may start runs whatever their permission: "alice" on
	// every venue, or "github:alice", "jira:bob", "reviewboard:carol" on
	// one. Names compare without regard to case; a leading "@" is ignored.
	AllowUsers []string
	// AllowSenders are the mail senders whose list patches are run: full
	// addresses ("dev@example.org") or whole domains ("@example.org", which
	// does not cover subdomains).
	AllowSenders []string
	// RequireWrite, when true, lets a GitHub user start a run only with
	// write permission or more (write, maintain, admin), and a JIRA or
	// Review Board user only when listed in AllowUsers. When false anyone
	// on those venues may, leaving the sandbox as the only defence. Mail
	// always needs AllowSenders. Use Default, not the zero Policy, as the
	// starting point.
	RequireWrite bool
	// ListedOnly, when true, lets only the users in AllowUsers start runs
	// on GitHub: permission on the repository admits no one.
	ListedOnly bool
	// AnyTrackerUser, when true, lets every JIRA and Review Board user
	// start runs, as Apache Yetus tests every patch attached to an issue
	// in "Patch Available"; the sandbox is then the only defence.
	AnyTrackerUser bool
}

// Default is the policy perfbot uses when the configuration names no one:
// GitHub users with write permission, nobody else.
func Default() Policy { return Policy{RequireWrite: true} }

// Decision is the answer to one request.
type Decision struct {
	// Allowed says whether the run may start.
	Allowed bool
	// Reason says why, for the log.
	Reason string
	// Refusal is the polite answer to post when the run is not allowed
	// (plain text; the venue escapes it). Empty when Allowed.
	Refusal string
}

// Venue names used in AllowUsers prefixes.
const (
	GitHub      = "github"
	JIRA        = "jira"
	ReviewBoard = "reviewboard"
	Gerrit      = "gerrit"
)

// GitHub permission levels, as the collaborator permission API reports
// them (role_name, or permission for the older levels).
const (
	PermAdmin    = "admin"
	PermMaintain = "maintain"
	PermWrite    = "write"
	PermTriage   = "triage"
	PermRead     = "read"
	PermNone     = "none"
)

// permRank orders the GitHub permission levels: -1 for a level GitHub
// does not define.
func permRank(perm string) int {
	switch perm {
	case PermNone:
		return 0
	case PermRead:
		return 1
	case PermTriage:
		return 2
	case PermWrite:
		return 3
	case PermMaintain:
		return 4
	case PermAdmin:
		return 5
	}
	return -1
}

// GitHub decides whether GitHub user login, whose permission on the
// repository is permission, may start a run.
func (p Policy) GitHub(login, permission string) Decision {
	login = strings.TrimPrefix(strings.TrimSpace(login), "@")
	if login == "" {
		return refuse("no GitHub user given", githubRefusal(""))
	}
	if p.listed(GitHub, login) {
		return allow(fmt.Sprintf("GitHub user %s is listed in the trigger allow list", login))
	}
	if p.ListedOnly {
		return refuse(fmt.Sprintf("GitHub user %s is not in the trigger allow list, the only way to start runs", login), githubRefusal(login))
	}
	perm := strings.ToLower(strings.TrimSpace(permission))
	rank := permRank(perm)
	switch {
	case !p.RequireWrite:
		return allow(fmt.Sprintf("GitHub user %s may start runs: write permission is not required", login))
	case rank < 0:
		return refuse(fmt.Sprintf("GitHub user %s has an unknown permission level %q", login, permission), githubRefusal(login))
	case rank >= permRank(PermWrite):
		return allow(fmt.Sprintf("GitHub user %s has %s permission", login, perm))
	}
	return refuse(fmt.Sprintf("GitHub user %s has only %s permission", login, perm), githubRefusal(login))
}

// NeedsPermission reports whether GitHub needs GitHub user login's
// permission on the repository: false when the policy decides without it,
// so that the venue can skip the API call.
func (p Policy) NeedsPermission(login string) bool {
	login = strings.TrimPrefix(strings.TrimSpace(login), "@")
	return login != "" && p.RequireWrite && !p.ListedOnly && !p.listed(GitHub, login)
}

// Tracker decides whether user of a JIRA or Review Board server (venue
// JIRA or ReviewBoard) may start a run.
func (p Policy) Tracker(venue, user string) Decision {
	user = strings.TrimPrefix(strings.TrimSpace(user), "@")
	name := venueName(venue)
	if user == "" {
		return refuse("no "+name+" user given", trackerRefusal(venue, ""))
	}
	if p.listed(venue, user) {
		return allow(fmt.Sprintf("%s user %s is listed in the trigger allow list", name, user))
	}
	if !p.RequireWrite || p.AnyTrackerUser {
		return allow(fmt.Sprintf("%s user %s may start runs: the allow list is not required", name, user))
	}
	return refuse(fmt.Sprintf("%s user %s is not in the trigger allow list", name, user), trackerRefusal(venue, user))
}

// Mail decides whether the patch mailed by sender (a From header value,
// "Name <addr>" or a bare address) is run.
func (p Policy) Mail(sender string) Decision {
	addr, err := mail.ParseAddress(sender)
	if err != nil {
		return refuse(fmt.Sprintf("unreadable sender address %q: %v", sender, err), mailRefusal(""))
	}
	a := strings.ToLower(addr.Address)
	at := strings.LastIndexByte(a, '@')
	if at < 0 {
		return refuse(fmt.Sprintf("sender %q has no domain", a), mailRefusal(""))
	}
	for _, s := range p.AllowSenders {
		s = strings.ToLower(strings.TrimSpace(s))
		switch {
		case s == "":
		case strings.HasPrefix(s, "@") && s == a[at:]:
			return allow(fmt.Sprintf("sender %s is in the allowed domain %s", a, s))
		case s == a:
			return allow(fmt.Sprintf("sender %s is in the sender allow list", a))
		}
	}
	return refuse(fmt.Sprintf("sender %s is not in the sender allow list", a), mailRefusal(a))
}

// listed reports whether user appears in AllowUsers for venue.
func (p Policy) listed(venue, user string) bool {
	for _, entry := range p.AllowUsers {
		entry = strings.TrimSpace(entry)
		v, name, scoped := strings.Cut(entry, ":")
		if !scoped {
			name = entry
		} else if !strings.EqualFold(v, venue) {
			continue
		}
		if name = strings.TrimPrefix(name, "@"); name != "" && strings.EqualFold(name, user) {
			return true
		}
	}
	return false
}

func venueName(venue string) string {
	switch strings.ToLower(venue) {
	case JIRA:
		return "JIRA"
	case ReviewBoard:
		return "Review Board"
	case Gerrit:
		return "Gerrit"
	case GitHub:
		return "GitHub"
	}
	return venue
}

func allow(reason string) Decision { return Decision{Allowed: true, Reason: reason} }

func refuse(reason, text string) Decision { return Decision{Reason: reason, Refusal: text} }

// plainName matches user names safe to repeat in a refusal on any venue.
var plainName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,38}$`) })

func githubRefusal(login string) string {
	greet := "Thank you for the request."
	if plainName().MatchString(login) {
		greet = fmt.Sprintf("Thank you for the request, @%s.", login)
	}
	return greet + " perfbot benchmarks unmerged patches only when someone with write access to this repository " +
		"(or listed in perfbot's configuration) asks, so it has not started this run. A maintainer can start it for you."
}

// trackerRefusal says what a JIRA or Review Board user can do: no one on
// the tracker can start a run for them, so the way in is to be listed.
func trackerRefusal(venue, user string) string {
	greet := "Thank you for the patch."
	who := "your " + venueName(venue) + " user name"
	if plainName().MatchString(user) {
		greet = fmt.Sprintf("Thank you for the patch, %s.", user)
		who = fmt.Sprintf("your %s user name (%s)", venueName(venue), user)
	}
	where := "patches attached to issues"
	if strings.EqualFold(venue, ReviewBoard) {
		where = "diffs on review requests"
	}
	if strings.EqualFold(venue, Gerrit) {
		where = "patch sets of changes"
	}
	return greet + " perfbot benchmarks " + where + " only for the users listed in its configuration, " +
		"so it has not run this one. To have your patches benchmarked, ask a maintainer of this project's " +
		"perfbot to add " + who + " to its tracker_users (in config.yaml, under triggers)."
}

// plainAddress matches addresses safe to repeat in a refusal.
var plainAddress = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9][a-z0-9._+-]{0,63}@[a-z0-9][a-z0-9.-]{0,253}$`)
})

// mailRefusal says what a sender can do: be listed.
func mailRefusal(addr string) string {
	who := "your address"
	if plainAddress().MatchString(addr) {
		who = "your address (" + addr + ")"
	}
	return "Thank you for the patch. perfbot benchmarks patches from this list only for the senders listed in " +
		"its configuration, so it has not run this one. To have your patches benchmarked, ask the list's " +
		"maintainers to add " + who + " to perfbot's senders (in config.yaml, under triggers)."
}
