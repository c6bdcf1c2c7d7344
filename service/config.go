package service

import (
	"time"

	"github.com/perfbot/perfbot/config"
)

// The service reads the one config schema of package config; these names
// are kept for the packages that already use them.
type (
	// Config is a whole config.yaml.
	Config = config.Config
	// ServiceConfig is the service: section.
	ServiceConfig = config.Service
	// StoreConfig is the store: section.
	StoreConfig = config.Store
	// Triggers is the triggers: section.
	Triggers = config.Triggers
	// Schedule is one entry of schedules:.
	Schedule = config.Schedule
	// DigestConfig is the digest: section.
	DigestConfig = config.Digest
	// Venues is the venues: section.
	Venues = config.Venues
)

// Committers is the word in triggers.allow that admits GitHub users with
// write, maintain or admin permission on the repository.
const Committers = config.Committers

// Decode reads a whole config.yaml (config.Parse): every section, once,
// with defaults applied, or every mistake with its line and column.
func Decode(data []byte, file string) (*Config, error) {
	return config.Parse(data, file)
}

// DigestPeriod returns the length of a digest period name.
func DigestPeriod(name string) (time.Duration, error) { return config.DigestPeriod(name) }
