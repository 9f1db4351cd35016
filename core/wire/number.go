package wire

import "strconv"

// number reads the JSON number at c.i and writes it exactly, in
// ECMAScript's Number::toString layout of its digits (RFC 8785, 3.2.2.3),
// which JCS uses for the shortest digits of a double: here the digits are
// all of those written, less leading and trailing zeros.
func (c *canon) number() bool {
	neg := false
	if c.src[c.i] == '-' {
		neg = true
		c.i++
	}
	var digits []byte
	point := 0 // digits before the decimal point
	switch {
	case c.i < len(c.src) && c.src[c.i] == '0':
		c.i++
	case c.i < len(c.src) && '1' <= c.src[c.i] && c.src[c.i] <= '9':
		for c.i < len(c.src) && isDigit(c.src[c.i]) {
			digits = append(digits, c.src[c.i])
			c.i++
		}
	default:
		return false
	}
	point = len(digits)
	if c.i < len(c.src) && c.src[c.i] == '.' {
		c.i++
		start := c.i
		for c.i < len(c.src) && isDigit(c.src[c.i]) {
			digits = append(digits, c.src[c.i])
			c.i++
		}
		if c.i == start {
			return false
		}
	}
	exp, ok := c.exponent()
	if !ok {
		return false
	}
	c.out = appendNumber(c.out, neg, digits, point, exp)
	return true
}

// exponent reads an optional exponent; a huge one is refused rather than
// written out.
func (c *canon) exponent() (int, bool) {
	if c.i >= len(c.src) || (c.src[c.i] != 'e' && c.src[c.i] != 'E') {
		return 0, true
	}
	c.i++
	neg := false
	if c.i < len(c.src) && (c.src[c.i] == '+' || c.src[c.i] == '-') {
		neg = c.src[c.i] == '-'
		c.i++
	}
	start := c.i
	for c.i < len(c.src) && isDigit(c.src[c.i]) {
		c.i++
	}
	if c.i == start {
		return 0, false
	}
	e, err := strconv.Atoi(string(c.src[start:c.i]))
	if err != nil || e > 1<<20 {
		return 0, false
	}
	if neg {
		e = -e
	}
	return e, true
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// appendNumber writes the number 0.digits × 10^(point+exp), negative if
// neg, as ECMAScript lays out the digits of a Number.
func appendNumber(dst []byte, neg bool, digits []byte, point, exp int) []byte {
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits, point = digits[lead:], point-lead
	end := len(digits)
	for end > 0 && digits[end-1] == '0' {
		end--
	}
	digits = digits[:end]
	if len(digits) == 0 {
		return append(dst, '0') // -0 is 0
	}
	if neg {
		dst = append(dst, '-')
	}
	k, n := len(digits), point+exp // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
