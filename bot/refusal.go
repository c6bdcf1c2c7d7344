package bot

import (
	"github.com/perfbot/perfbot/intake"
	"github.com/perfbot/perfbot/review"
)

// RefusalMessage is intake.RefusalMessage.
func RefusalMessage(key, subject, text string) review.Message {
	return intake.RefusalMessage(key, subject, text)
}
