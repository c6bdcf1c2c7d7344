package service

import "github.com/perfbot/perfbot/internal/cron"

// Cron is a parsed cron spec (see cron.Spec).
type Cron = cron.Spec

// ParseCron parses a schedule's cron spec; config check uses the same
// parser, so a spec it accepts is one the service fires.
func ParseCron(spec string) (*Cron, error) { return cron.Parse(spec) }
