package pacing

import (
	"math"
	"time"
)

// IdleShare is the part of an account's rate that relisting zones while nothing changes may use: 1 %.
// A provider that can probe a zone cheaply relists it only this often (plus when a probe says it
// changed), so an idle process leaves 99 % of the account to everything else.
const IdleShare = 0.01

// RelistPeriod is the default period of a full relisting that costs pages list calls, for an account
// allowed perSecond requests: the period at which those pages use IdleShare of the rate. Route 53 at
// 5 requests/s with one 40,002-set zone (134 pages): 134 / 0.05 = 2,680 s, about 45 minutes; a zone of
// one page: 20 s, so a small zone is simply relisted at every probe.
func RelistPeriod(pages int, perSecond float64) time.Duration {
	if pages <= 0 || perSecond <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(float64(pages)/(perSecond*IdleShare))) * time.Second
}
