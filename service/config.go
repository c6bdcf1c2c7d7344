package service

import (
	"github.com/perfbot/perfbot/config"
)

// Decode reads a whole config.yaml (config.Parse): every section, once,
// with defaults applied, or every mistake with its line and column.
func Decode(data []byte, file string) (*config.Config, error) {
	return config.Parse(data, file)
}
