package config

import (
	"regexp"
	"strings"
	"sync"

	"github.com/perfbot/perfbot/trigger"
)

// gerritLabel is a label name as Gerrit allows it.
var gerritLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`) })

// checkGerrit checks venues.gerrit: addresses and names, and that polling
// has what it needs and someone whose patch sets may run.
func (c *Config) checkGerrit(v *validator) {
	g := c.Venues.Gerrit
	checkURL(v, "venues.gerrit.url", g.URL, "http", "https")
	checkEnvName(v, "venues.gerrit.password_env", g.PasswordEnv)
	if g.Label != "" && !gerritLabel().MatchString(g.Label) {
		v.add("venues.gerrit.label", "expected a Gerrit label name such as Performance (letters, digits, dashes), got %q", g.Label)
	}
	if strings.ContainsAny(g.Query, "\r\n") {
		v.add("venues.gerrit.query", "expected one line of Gerrit search syntax, such as \"status:open project:store\"")
	}
	if strings.ContainsAny(g.User, " \t\r\n:") {
		v.add("venues.gerrit.user", "expected an account's username (no spaces or colons), got %q", g.User)
	}
	if (g.URL != "" || g.Poll) && g.User == "" {
		v.add("venues.gerrit", "needs user: perfbot's account, signed in with its HTTP password")
	}
	if !g.Poll {
		return
	}
	if g.Query == "" {
		v.add("venues.gerrit.poll", "polling needs query: the changes to watch, such as \"status:open project:store\"")
	}
	if !g.ReadsCommands() && !g.RunsPatchSets() {
		v.add("venues.gerrit.poll", "poll is on but commands and patch_sets are both false: nothing would be read")
	}
	p := c.Triggers.Policy()
	if g.Group == "" && !p.AnyTrackerUser && !c.Triggers.namesUsersOf(trigger.Gerrit) {
		v.add("venues.gerrit.poll", `is on but neither venues.gerrit.group nor triggers.tracker_users ("gerrit:NAME", or "*") names anyone whose changes may run`)
	}
}
