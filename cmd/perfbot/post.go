package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/post"
)

// targetsFlag is a repeatable --post, each value parsed as it is given.
type targetsFlag []target.Target

func (f *targetsFlag) String() string { return strings.Join(target.Strings(*f), ",") }

func (f *targetsFlag) Set(v string) error {
	t, err := target.Parse(v)
	if err != nil {
		return err
	}
	*f = append(*f, t)
	return nil
}

// postAnswer posts msg to each target through venues (post.ForConfig),
// reporting each link on stderr. Every target is tried; the errors are
// joined.
func postAnswer(ctx context.Context, msg answer.Answer, targets []target.Target, venues *post.Router, stderr io.Writer) error {
	return venues.PostAll(ctx, msg, targets, func(t target.Target, link string) {
		fmt.Fprintf(stderr, "perfbot: posted to %s: %s\n", t, link)
	})
}
