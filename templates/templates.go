// Package templates holds perfbot's default report templates, one file per
// venue, embedded in the binary. Each file defines one template per shape of
// table ("units", "table", "sweep", "counters", "workloads") and per part of
// a report ("report", "summary", "details", "failures", "legend",
// "provenance"); a user folder given to report.Options.TemplateDir may
// redefine any of them. digest.tmpl is the digest mail's HTML part
// (digest.Digest.HTMLWith takes the folder that overrides it).
package templates

import "embed"

// FS holds the default templates: markdown.tmpl (GitHub), reviewboard.tmpl,
// jira.tmpl, text.tmpl and html.tmpl for reports, and digest.tmpl for the
// digest mail's HTML part.
//
//go:embed *.tmpl
var FS embed.FS
