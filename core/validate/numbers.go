package validate

import (
	"strconv"
	"strings"
)

// decimal is a JSON number read in one linear pass, with no big-number
// arithmetic: its value is ±digits × 10^exp, where digits has no leading
// or trailing zeros ("" for zero). A million-digit number costs a
// million steps, never a quadratic conversion.
type decimal struct {
	neg    bool
	digits string
	exp    int
	// huge says the exponent does not fit an int32: the magnitude is
	// then astronomically large (or small, with a negative exponent).
	huge bool
}

// parseDecimal reads s, the text of a JSON number. It reports false for
// text that is not one.
func parseDecimal(s string) (d decimal, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return d, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return d, false
		}
	}
	exp, expNeg := 0, false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp < 1<<31 {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == es {
			return d, false
		}
	}
	if i != len(s) {
		return d, false
	}
	// The digits of intPart+frac, without concatenating them.
	all := len(intPart) + len(frac)
	at := func(k int) byte {
		if k < len(intPart) {
			return intPart[k]
		}
		return frac[k-len(intPart)]
	}
	lo, hi := 0, all
	for lo < hi && at(lo) == '0' {
		lo++
	}
	for hi > lo && at(hi-1) == '0' {
		hi--
	}
	if lo == hi {
		return decimal{}, true // zero, whatever its sign or exponent
	}
	if exp >= 1<<31 {
		d.huge = true
		exp = 1 << 31
	}
	if expNeg {
		exp = -exp
	}
	var b strings.Builder
	b.Grow(hi - lo)
	for k := lo; k < hi; k++ {
		b.WriteByte(at(k))
	}
	d.digits = b.String()
	// value = 0.digits-with-point-after-intPart... : the last kept digit
	// sits at position hi-1, worth 10^(len(intPart)-hi).
	d.exp = exp + len(intPart) - hi
	return d, true
}

// magnitude is the number of digits before the decimal point of |d|
// (negative or zero below 1).
func (d decimal) magnitude() int { return len(d.digits) + d.exp }

// cmpAbs compares |a| and |b|.
func cmpAbs(a, b decimal) int {
	switch {
	case a.digits == "" && b.digits == "":
		return 0
	case a.digits == "":
		return -1
	case b.digits == "":
		return 1
	}
	if ma, mb := a.magnitude(), b.magnitude(); ma != mb {
		if ma < mb {
			return -1
		}
		return 1
	}
	// Same magnitude: compare digit by digit, the shorter padded with 0.
	n := max(len(a.digits), len(b.digits))
	for k := range n {
		var x, y byte = '0', '0'
		if k < len(a.digits) {
			x = a.digits[k]
		}
		if k < len(b.digits) {
			y = b.digits[k]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// integer checks that n is an integer within ti's range, as JSON Schema
// would (1.0 and 1e2 are integers), and returns its canonical form.
func integer(n string, ti *typeInfo) (canon, rule, param, msg string) {
	lo, hi := intRange(ti)
	if ti.kind == kInt {
		if v, err := strconv.ParseInt(n, 10, ti.bits); err == nil {
			return strconv.FormatInt(v, 10), "", "", ""
		}
	} else if v, err := strconv.ParseUint(n, 10, ti.bits); err == nil {
		return strconv.FormatUint(v, 10), "", "", ""
	}
	d, ok := parseDecimal(n)
	if !ok || d.exp < 0 {
		return "", "type", "integer", "must be an integer"
	}
	if d.digits == "" {
		return "0", "", "", ""
	}
	tooBig := func() (string, string, string, string) {
		if d.neg {
			return "", "min", string(lo), "must be at least " + string(lo)
		}
		return "", "max", string(hi), "must be at most " + string(hi)
	}
	if d.huge || d.magnitude() > 20 {
		return tooBig()
	}
	s := d.digits + strings.Repeat("0", d.exp)
	if d.neg {
		s = "-" + s
	}
	if ti.kind == kInt {
		if v, err := strconv.ParseInt(s, 10, ti.bits); err == nil {
			return strconv.FormatInt(v, 10), "", "", ""
		}
	} else if v, err := strconv.ParseUint(s, 10, ti.bits); err == nil {
		return strconv.FormatUint(v, 10), "", "", ""
	}
	return tooBig()
}

// float checks that n fits ti's float type. float32 is held to the bound
// its schema advertises, compared exactly; float64 to what it can hold.
func float(n string, ti *typeInfo) (rule, param, msg string) {
	if ti.bits == 32 {
		d, ok := parseDecimal(n)
		if !ok {
			return "type", "number", "must be a number"
		}
		if cmpAbs(d, maxFloat32) > 0 {
			if d.neg {
				return "min", "-" + maxFloat32Text, "must be at least -" + maxFloat32Text
			}
			return "max", maxFloat32Text, "must be at most " + maxFloat32Text
		}
		return "", "", ""
	}
	if _, err := strconv.ParseFloat(n, 64); err != nil {
		return "type", "number", "is out of range for a number"
	}
	return "", "", ""
}

// maxFloat32Text is float32's bound as the schema states it.
var (
	maxFloat32Text = strconv.FormatFloat(3.4028234663852886e+38, 'g', -1, 64)
	maxFloat32, _  = parseDecimal(maxFloat32Text)
)
