package intake

import (
	"github.com/perfbot/perfbot/report"
	"github.com/perfbot/perfbot/review"
)

// RefusalMessage is the answer to a request that the trigger policy
// refused: report.Refusal, the policy's polite text escaped for each
// format.
func RefusalMessage(key, subject, text string) review.Message {
	return report.Refusal(key, subject, text)
}
