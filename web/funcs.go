package web

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

var funcs = template.FuncMap{
	"short": shortCommit,
	"num":   num,
	"pct":   func(v float64) string { return fmt.Sprintf("%+.1f%%", v) },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"size": func(n int) string {
		switch {
		case n >= 1<<20:
			return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
		case n >= 1<<10:
			return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
		}
		return fmt.Sprintf("%d B", n)
	},
	"weblink": func(s string) bool {
		return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
	},
	"join":  strings.Join,
	"deref": func(p *float64) float64 { return *p },
}
