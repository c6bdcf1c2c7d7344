package post

import (
	"context"
	"strings"
	"testing"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
)

func TestAnswerKey(t *testing.T) {
	a := []target.Target{target.PR("acme/store", 7), target.Issue("STORE-1")}
	b := []target.Target{a[1], a[0]}
	if AnswerKey(a, []string{"go"}) != AnswerKey(b, []string{"go"}) {
		t.Error("the key depends on the targets' order")
	}
	if AnswerKey(a, []string{"go"}) == AnswerKey(a, []string{"wal"}) {
		t.Error("other suites give the same key")
	}
	if k := AnswerKey(a, nil); !strings.HasPrefix(k, "cli-") || len(k) != len("cli-")+16 {
		t.Errorf("key %q", k)
	}
}

func TestPostAllTriesEveryTarget(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "")
	r := ForConfig(nil)
	var posted []string
	err := r.PostAll(context.Background(), answer.Answer{Key: "k"}, []target.Target{target.PR("acme/store", 7), {Venue: "svn"}},
		func(t target.Target, link string) { posted = append(posted, t.String()) })
	if err == nil || !strings.Contains(err.Error(), "github") || !strings.Contains(err.Error(), `unknown venue "svn"`) {
		t.Errorf("err = %v, want both targets' errors", err)
	}
	if len(posted) != 0 {
		t.Errorf("posted %v", posted)
	}
}
