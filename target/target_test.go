package target_test

import (
	"encoding/json"
	"net/mail"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/target"
)

// TestRoundTrip: every form parses to its fields, String writes it back as
// it was written, and JSON carries the same text, so stored jobs and
// outbox rows of earlier versions decode.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want target.Target
		out  string // String, when not in
	}{
		{in: "github:acme/store#42", want: target.Target{Venue: "github", Repo: "acme/store", Number: 42}},
		{in: "github:#7", want: target.Target{Venue: "github", Number: 7}},
		{in: "gitlab:acme/store!42", want: target.Target{Venue: "gitlab", Repo: "acme/store", Number: 42}},
		{in: "gitlab:acme/platform/store!3", want: target.Target{Venue: "gitlab", Repo: "acme/platform/store", Number: 3}},
		{in: "gitlab:!9", want: target.Target{Venue: "gitlab", Number: 9}},
		{in: "jira:STORE-123", want: target.Target{Venue: "jira", Key: "STORE-123"}},
		{in: "jira:A_1-9", want: target.Target{Venue: "jira", Key: "A_1-9"}},
		{in: "reviewboard:1234", want: target.Target{Venue: "reviewboard", Number: 1234}},
		{in: "gerrit:1234", want: target.Target{Venue: "gerrit", Change: "1234"}},
		{in: "gerrit:1234/3", want: target.Target{Venue: "gerrit", Change: "1234", PatchSet: 3}},
		{in: "gerrit:store~1234", want: target.Target{Venue: "gerrit", Change: "store~1234"}},
		{in: "gerrit:platform/store~main~I8473b9", want: target.Target{Venue: "gerrit", Change: "platform/store~main~I8473b9"}},
		{in: "gerrit:platform/store~release/1.0~I8473b9/2", want: target.Target{Venue: "gerrit", Change: "platform/store~release/1.0~I8473b9", PatchSet: 2}},
		{in: "mail:dev@lists.example.org", want: target.Target{Venue: "mail", To: []mail.Address{{Address: "dev@lists.example.org"}}}},
		{in: "mail:a@example.org,b@example.org", want: target.Target{Venue: "mail", To: []mail.Address{{Address: "a@example.org"}, {Address: "b@example.org"}}}},
		{in: "mail:dev@lists.example.org?cc=alice%40example.org%2Cbob%40example.org", want: target.Target{Venue: "mail",
			To: []mail.Address{{Address: "dev@lists.example.org"}}, Cc: []mail.Address{{Address: "alice@example.org"}, {Address: "bob@example.org"}}}},
		{in: "mail:dev@lists.example.org?cc=alice@example.org", out: "mail:dev@lists.example.org?cc=alice%40example.org", want: target.Target{Venue: "mail",
			To: []mail.Address{{Address: "dev@lists.example.org"}}, Cc: []mail.Address{{Address: "alice@example.org"}}}},
		{in: "mail:Store developers <dev@store.example.org>", out: `mail:"Store developers" <dev@store.example.org>`, want: target.Target{Venue: "mail",
			To: []mail.Address{{Name: "Store developers", Address: "dev@store.example.org"}}}},
		{in: "mail:Jörg <j@example.org>", out: "mail:j@example.org", want: target.Target{Venue: "mail", To: []mail.Address{{Address: "j@example.org"}}}},
	} {
		got, err := target.Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		out := tc.out
		if out == "" {
			out = tc.in
		}
		if s := got.String(); s != out {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s, out)
		}
		if w := strings.TrimPrefix(out, got.Venue+":"); got.Where() != w {
			t.Errorf("Parse(%q).Where() = %q, want %q", tc.in, got.Where(), w)
		}
		again, err := target.Parse(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", got.String(), again, err, got)
		}
		// JSON: the text form, inside a list as jobspec.Spec holds it.
		data, err := json.Marshal([]target.Target{got})
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal([]string{out}); string(data) != string(want) {
			t.Errorf("JSON of %q = %s, want %s", tc.in, data, want)
		}
		// What an earlier version stored (the text as written) decodes.
		old, _ := json.Marshal([]string{tc.in})
		var back []target.Target
		if err := json.Unmarshal(old, &back); err != nil || len(back) != 1 || !reflect.DeepEqual(back[0], got) {
			t.Errorf("decode %s = %+v, %v; want %+v", old, back, err, got)
		}
	}
}

func TestZero(t *testing.T) {
	var z target.Target
	if !z.IsZero() || z.String() != "" {
		t.Errorf("zero target %+v: %q", z, z.String())
	}
	data, err := json.Marshal(struct{ T target.Target }{})
	if err != nil || string(data) != `{"T":""}` {
		t.Errorf("zero JSON %s %v", data, err)
	}
	var back struct{ T target.Target }
	if err := json.Unmarshal(data, &back); err != nil || !back.T.IsZero() {
		t.Errorf("zero back %+v %v", back, err)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "want VENUE:ADDRESS",
		"github":                   "want VENUE:ADDRESS",
		"github:":                  "want VENUE:ADDRESS",
		"slack:#perf":              `unknown venue "slack"`,
		"github:acme/store":        `github target "acme/store": want OWNER/REPO#N`,
		"github:acme#1":            `github target "acme#1"`,
		"github:acme/store#x":      `github target "acme/store#x"`,
		"github:/store#1":          `github target "/store#1"`,
		"github:a/b/c#1":           `github target "a/b/c#1"`,
		"github:a/b#0":             `github target "a/b#0"`,
		"github:#0":                `github target "#0"`,
		"github:#":                 `github target "#"`,
		"gitlab:acme!1":            `gitlab target "acme!1": want GROUP/PROJECT!N`,
		"gitlab:acme/store":        `gitlab target "acme/store"`,
		"gitlab:acme/store.git!1":  `gitlab target "acme/store.git!1"`,
		"gitlab:acme/../x!1":       `gitlab target "acme/../x!1"`,
		"gitlab:acme/-x!1":         `gitlab target "acme/-x!1"`,
		"gitlab:acme/store!0":      `gitlab target "acme/store!0"`,
		"jira:store-1":             `jira target "store-1": want an issue key such as STORE-123`,
		"jira:STORE-01":            `jira target "STORE-01"`,
		"jira:STORE":               `jira target "STORE"`,
		"jira:1STORE-1":            `jira target "1STORE-1"`,
		"reviewboard:x":            `reviewboard target "x": want a review request number`,
		"reviewboard:0":            `reviewboard target "0"`,
		"gerrit:1234/0":            `gerrit target "1234/0": patch set 0, want 1 or more`,
		"gerrit:1234/-1":           `change "1234/-1" is neither a number nor PROJECT~BRANCH~I<Change-Id>`,
		"gerrit:12 34":             `gerrit target "12 34": want CHANGE[/PATCHSET]`,
		"gerrit:abc":               `change "abc" is neither`,
		"gerrit:1234?x=1":          `gerrit target "1234?x=1"`,
		"mail:not-an-address":      `mail target "not-an-address": want ADDRESS[,ADDRESS]`,
		"mail:a@b.org?bcc=c@d.org": `mail target "a@b.org?bcc=c@d.org": unknown field "bcc"`,
		"mail:a@b.org?cc=nobody":   `mail target "nobody"`,
		"mail:a@b.org?cc=%zz":      `mail target "a@b.org?cc=%zz"`,
	} {
		_, err := target.Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", in, err, want)
		}
		var tt target.Target
		if in != "" {
			if err := json.Unmarshal([]byte(`"`+strings.ReplaceAll(in, `"`, `\"`)+`"`), &tt); err == nil {
				t.Errorf("UnmarshalText(%q) succeeded", in)
			}
		}
	}
}

// TestVenueRules holds each venue's cases, as its client checked them
// before targets were parsed here.
func TestVenueRules(t *testing.T) {
	for _, tc := range []struct {
		in     string
		change string
		ps     int
		bad    bool
	}{
		{"1234", "1234", 0, false},
		{"1234/3", "1234", 3, false},
		{"store~1234", "store~1234", 0, false},
		{"platform/store~main~I8473b9", "platform/store~main~I8473b9", 0, false},
		{"platform/store~release/1.0~I8473b9/2", "platform/store~release/1.0~I8473b9", 2, false},
		{"1234/0", "", 0, true},
		{"1234/-1", "1234/-1", 0, true},
		{"", "", 0, true},
		{"12 34", "", 0, true},
		{"abc", "", 0, true},
		{"1234?x=1", "", 0, true},
	} {
		got, err := target.Parse("gerrit:" + tc.in)
		if (err != nil) != tc.bad || !tc.bad && (got.Change != tc.change || got.PatchSet != tc.ps) {
			t.Errorf("Parse(gerrit:%q) = %+v, %v", tc.in, got, err)
		}
	}
	bad := map[string][]string{
		"github":      {"acme/store", "acme#1", "acme/store#x", "/store#1", "a/b/c#1", "a/b#0"},
		"gitlab":      {"acme!12", "acme/store#12", "acme/store!x", "acme/store!0", "../x!1"},
		"jira":        {"store-1", "STORE", "STORE-0", "STORE-1 ", "../x"},
		"reviewboard": {"abc", "-1", "0", "12/x"},
		"mail":        {"not-an-address"},
	}
	want := map[string]string{"github": "OWNER/REPO#N", "gitlab": "GROUP/PROJECT!N", "jira": "issue key", "reviewboard": "review request number", "mail": "ADDRESS[,ADDRESS]"}
	for v, ws := range bad {
		for _, w := range ws {
			if _, err := target.Parse(v + ":" + w); err == nil || !strings.Contains(err.Error(), want[v]) || !strings.Contains(err.Error(), strconv.Quote(w)) {
				t.Errorf("Parse(%s:%s) = %v, want an error naming %q and %q", v, w, err, w, want[v])
			}
		}
	}
}

func TestWithRepo(t *testing.T) {
	for _, tc := range []struct{ in, repo, want, err string }{
		{"github:#7", "acme/store", "github:acme/store#7", ""},
		{"github:other/x#7", "acme/store", "github:other/x#7", ""},
		{"github:#7", "", "", "a bare #N needs venues.github.repo (OWNER/REPO)"},
		{"github:#7", "acme", "", `github target "acme#7"`},
		{"gitlab:!3", "acme/platform/store", "gitlab:acme/platform/store!3", ""},
		{"gitlab:!3", "", "", "a bare !N needs venues.gitlab.project (GROUP/PROJECT)"},
		{"gitlab:!3", "acme", "", `gitlab target "acme!3"`},
		{"jira:STORE-1", "acme/store", "jira:STORE-1", ""},
	} {
		got, err := target.MustParse(tc.in).WithRepo(tc.repo)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s.WithRepo(%q) = %v, want error %q", tc.in, tc.repo, err, tc.err)
		case tc.err == "" && (err != nil || got.String() != tc.want):
			t.Errorf("%s.WithRepo(%q) = %s, %v; want %s", tc.in, tc.repo, got, err, tc.want)
		}
	}
}

func TestConstructors(t *testing.T) {
	for _, tc := range []struct {
		t    target.Target
		want string
	}{
		{target.PR("acme/store", 42), "github:acme/store#42"},
		{target.MR("acme/store", 3), "gitlab:acme/store!3"},
		{target.Issue("STORE-1"), "jira:STORE-1"},
		{target.ReviewRequest(9), "reviewboard:9"},
		{target.Change("store~1234", 2), "gerrit:store~1234/2"},
		{target.MailTo([]string{"dev@example.org"}, []string{"a@example.org"}), "mail:dev@example.org?cc=a%40example.org"},
		{target.MailTo([]string{"dev@example.org"}, nil), "mail:dev@example.org"},
	} {
		if tc.t.String() != tc.want {
			t.Errorf("%+v = %q, want %q", tc.t, tc.t.String(), tc.want)
		}
		if p, err := target.Parse(tc.want); err != nil || !reflect.DeepEqual(p, tc.t) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.want, p, err, tc.t)
		}
	}
	pr := target.PR("acme/store", 1)
	if pr.Owner() != "acme" || pr.Name() != "store" {
		t.Errorf("%s: owner %q name %q", pr, pr.Owner(), pr.Name())
	}
}

func TestValidGitLabProject(t *testing.T) {
	for p, want := range map[string]bool{
		"acme/store": true, "acme/sub/store": true, "a_b/c.d-e": true, "_a/b": true,
		"acme": false, "/store": false, "acme/": false, "acme//x": false, "acme/store.git": false,
		"acme/.x": false, "acme/a..b": false, "acme/st ore": false, "acme/störe": false,
	} {
		if target.ValidGitLabProject(p) != want {
			t.Errorf("ValidGitLabProject(%q) = %v", p, !want)
		}
	}
}
