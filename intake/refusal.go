package intake

import (
	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/report"
)

// RefusalMessage is the answer to a request that the trigger policy
// refused: report.Refusal, the policy's polite text escaped for each
// format.
func RefusalMessage(key, subject, text string) answer.Answer {
	return report.Refusal(key, subject, text)
}
