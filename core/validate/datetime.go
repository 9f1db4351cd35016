package validate

// dateTimePattern is the shape of an RFC 3339 date-time that Go's
// time.Time and JSON Schema's "date-time" format both accept: upper-case
// T and Z, seconds up to 59 (Go has no leap seconds), offsets up to 23:59
// (Go would take +24:00, the format would not) and a dot before
// fractions (Go would take a comma). A time.Time argument advertises it
// next to the format and is held to it when called, so that the schema
// and the runtime agree on every string.
const dateTimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`

// dateTimeShape reports whether b matches dateTimePattern, in one pass and
// without allocating: it runs on every time.Time argument.
func dateTimeShape(b []byte) bool {
	digits := func(i, n int) bool {
		if i+n > len(b) {
			return false
		}
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	hour := func(i int) bool {
		return digits(i, 2) && (b[i] <= '1' || b[i] == '2' && b[i+1] <= '3')
	}
	sixty := func(i int) bool { return digits(i, 2) && b[i] <= '5' }
	lit := func(i int, c byte) bool { return i < len(b) && b[i] == c }
	if !digits(0, 4) || !lit(4, '-') || !digits(5, 2) || !lit(7, '-') || !digits(8, 2) || !lit(10, 'T') ||
		!hour(11) || !lit(13, ':') || !sixty(14) || !lit(16, ':') || !sixty(17) {
		return false
	}
	i := 19
	if lit(i, '.') {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if lit(i, 'Z') {
		return i+1 == len(b)
	}
	if !lit(i, '+') && !lit(i, '-') {
		return false
	}
	return hour(i+1) && lit(i+3, ':') && sixty(i+4) && i+6 == len(b)
}
