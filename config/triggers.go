package config

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/perfbot/perfbot/trigger"
)

// Committers is the word in triggers.allow that admits GitHub users with
// write, maintain or admin permission on the repository.
const Committers = "committers"

// Policy is the trigger policy the intakes apply: GitHub by permission
// ("committers") or by name, JIRA and Review Board by the patch author's
// name (or anyone with "*"), mail by the sender's address or domain.
// Unscoped names in Allow are GitHub logins: a GitHub login and a JIRA
// user of the same name need not be the same person.
func (t Triggers) Policy() trigger.Policy {
	p := trigger.Policy{RequireWrite: true, ListedOnly: true, AllowSenders: t.Senders}
	for _, a := range t.Allow {
		a = strings.TrimSpace(a)
		switch {
		case strings.EqualFold(a, Committers):
			p.ListedOnly = false
		case strings.Contains(a, ":"):
			p.AllowUsers = append(p.AllowUsers, a)
		case a != "":
			p.AllowUsers = append(p.AllowUsers, trigger.GitHub+":"+a)
		}
	}
	for _, u := range t.TrackerUsers {
		u = strings.TrimSpace(u)
		switch {
		case u == "*":
			p.AnyTrackerUser = true
		case strings.Contains(u, ":"):
			p.AllowUsers = append(p.AllowUsers, u)
		case u != "":
			p.AllowUsers = append(p.AllowUsers, trigger.JIRA+":"+u, trigger.ReviewBoard+":"+u)
		}
	}
	return p
}

// check reports entries the policy cannot use, and a polled tracker
// whose patches no one could get run.
func (t Triggers) check(v *validator, pollJIRA, pollReviewBoard bool) {
	venueOK := func(field string, i int, entry string, venues ...string) {
		path := fmt.Sprintf("triggers.%s[%d]", field, i)
		vn, name, scoped := strings.Cut(entry, ":")
		switch {
		case strings.TrimSpace(entry) == "":
			v.add(path, "is empty")
		case entry == "*" && field == "allow":
			v.add(path, `"*": GitHub runs need write permission ("committers") or a listed name`)
		case scoped && strings.TrimPrefix(strings.TrimSpace(name), "@") == "":
			v.add(path, "%q names no user", entry)
		case scoped:
			for _, ok := range venues {
				if strings.EqualFold(strings.TrimSpace(vn), ok) {
					return
				}
			}
			v.add(path, "%q: venue %q, want one of %s", entry, vn, strings.Join(venues, ", "))
		}
	}
	for i, a := range t.Allow {
		venueOK("allow", i, a, trigger.GitHub, trigger.GitLab, trigger.JIRA, trigger.ReviewBoard, trigger.Gerrit)
	}
	for i, u := range t.TrackerUsers {
		venueOK("tracker_users", i, u, trigger.JIRA, trigger.ReviewBoard, trigger.Gerrit)
	}
	for i, s := range t.Senders {
		if err := checkSender(s); err != nil {
			v.add(fmt.Sprintf("triggers.senders[%d]", i), "%v", err)
		}
	}
	p := t.Policy()
	for _, x := range []struct {
		on          bool
		venue, name string
	}{{pollJIRA, trigger.JIRA, "venues.jira.poll"}, {pollReviewBoard, trigger.ReviewBoard, "venues.reviewboard.poll"}} {
		if x.on && !p.AnyTrackerUser && !t.namesUsersOf(x.venue) {
			v.add(x.name, `%s is on but triggers.tracker_users names no %s user, so no patch would run: list the users whose patches may run, or "*" to run every new patch (as Apache Yetus does)`, x.name, x.venue)
		}
	}
}

// namesUsersOf reports whether tracker_users or allow name a user of venue.
func (t Triggers) namesUsersOf(venue string) bool {
	for _, e := range t.Policy().AllowUsers {
		if v, _, _ := strings.Cut(e, ":"); strings.EqualFold(v, venue) {
			return true
		}
	}
	return false
}

// checkSender accepts a bare mail address or "@domain".
func checkSender(s string) error {
	s = strings.TrimSpace(s)
	if domain, ok := strings.CutPrefix(s, "@"); ok {
		if domain == "" || strings.ContainsAny(domain, "@ <>,") || !strings.Contains(domain, ".") && domain != "localhost" {
			return fmt.Errorf("%q: want a domain such as @example.org", s)
		}
		return nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return fmt.Errorf("%q: want a bare address such as dev@example.org, or @domain", s)
	}
	return nil
}
