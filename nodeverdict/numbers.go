// How reasons print numbers, durations and periods.

package nodeverdict

import (
	"strconv"
	"time"
)

func value(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// number prints a count or a sum without a needless exponent or fraction.
func number(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// seconds prints a number of seconds as a duration: 1.02s, 5m0s.
func seconds(s float64) string {
	const maxSeconds = float64(1<<63-1) / float64(time.Second)
	if s >= maxSeconds {
		return number(s) + "s"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func periodText(p Period) string {
	if !p.Known {
		return ""
	}
	return p.Duration.String()
}
