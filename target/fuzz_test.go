package target_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/target"
)

// FuzzParse: an accepted target is of a known venue, with the fields its
// venue reads (a gerrit change without spaces or a query, a patch set of
// 0 or more, a positive number), and it reads back the same from its
// String and from its JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"github:acme/store#42", "github:#7", "github:a/b#0", "gitlab:acme/sub/store!3", "gitlab:!1",
		"jira:STORE-123", "reviewboard:1234", "gerrit:1234", "gerrit:1234/2", "gerrit:p/q~main~I1/3",
		"gerrit:x", "gerrit:1/0", "gerrit:/", "gerrit:~/1", "mail:dev@example.org?cc=a%40b.org",
		"mail:Store developers <dev@store.example.org>", "mail:Jörg <j@x.org>", "mail:a@b?cc=%zz", "x:y", ":",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := target.Parse(s)
		if err != nil {
			return
		}
		switch tg.Venue {
		case target.GitHub, target.GitLab, target.ReviewBoard:
			if tg.Number <= 0 {
				t.Errorf("Parse(%q) = %+v: number", s, tg)
			}
		case target.Gerrit:
			if tg.Change == "" || tg.PatchSet < 0 || strings.ContainsAny(tg.Change, " ?#\n") {
				t.Errorf("Parse(%q) = %+v: change", s, tg)
			}
		case target.JIRA:
			if tg.Key == "" {
				t.Errorf("Parse(%q) = %+v: key", s, tg)
			}
		case target.Mail:
			if len(tg.To) == 0 {
				t.Errorf("Parse(%q) = %+v: no recipient", s, tg)
			}
		default:
			t.Errorf("Parse(%q) = %+v: venue", s, tg)
		}
		again, err := target.Parse(tg.String())
		if err != nil || !reflect.DeepEqual(again, tg) {
			t.Fatalf("Parse(%q) = %+v; its String %q reads back as %+v, %v", s, tg, tg.String(), again, err)
		}
		data, err := json.Marshal(tg)
		if err != nil {
			t.Fatal(err)
		}
		var back target.Target
		if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, tg) {
			t.Fatalf("JSON %s of %q reads back as %+v, %v", data, s, back, err)
		}
	})
}
