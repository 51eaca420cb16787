package when

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The string formats CEL reads as other types, parsed as the API server
// parses them (k8s.io/kube-openapi's validation/strfmt, which the runtime
// module does not import: it would add a dependency to every user's module
// graph). The differential test holds them to the API server's values.

// dateTimeLayouts are tried in order; the first that parses wins.
var dateTimeLayouts = []string{"2006-01-02T15:04:05.000000Z07:00", "2006-01-02T15:04:05.000Z07:00", time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05"}

// parseDateTime reads a date-time string; "" is the Unix epoch.
func parseDateTime(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	var last error
	for _, layout := range dateTimeLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return t, nil
		}
		last = err
	}
	return time.Time{}, last
}

// parseDate reads a full date (2006-01-02).
func parseDate(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }

var (
	durationPart = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	// durationUnits: each unit's spellings, the last one also as a prefix.
	durationUnits = []struct {
		spellings []string
		unit      time.Duration
	}{
		{[]string{"ns", "nano"}, time.Nanosecond},
		{[]string{"us", "µs", "micro"}, time.Microsecond},
		{[]string{"ms", "milli"}, time.Millisecond},
		{[]string{"s", "sec"}, time.Second},
		{[]string{"m", "min"}, time.Minute},
		{[]string{"h", "hr", "hour"}, time.Hour},
		{[]string{"d", "day"}, 24 * time.Hour},
		{[]string{"w", "wk", "week"}, 7 * 24 * time.Hour},
	}
)

// parseDuration reads a duration: Go's syntax, else a sum of counts with
// units (3 days 4h, Scala's syntax).
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	var d time.Duration
	ok := false
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return 0, err
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, u := range durationUnits {
			last := len(u.spellings) - 1
			for i, sp := range u.spellings {
				if i == last && strings.HasPrefix(unit, sp) || strings.EqualFold(sp, unit) {
					ok = true
					d += time.Duration(n) * u.unit
				}
			}
		}
	}
	if !ok {
		return 0, fmt.Errorf("unable to parse %s as duration", s)
	}
	return d, nil
}

// parseBytes reads a byte string: URL-safe base64, padded.
func parseBytes(s string) ([]byte, error) {
	buf := make([]byte, base64.URLEncoding.DecodedLen(len(s)))
	n, err := base64.URLEncoding.Decode(buf, []byte(s))
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}
