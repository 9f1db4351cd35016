package validate

import (
	"cmp"
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
	// huge says the exponent's magnitude is expCap or more: the
	// magnitude is then astronomically large (or small, with a negative
	// exponent).
	huge bool
}

// expCap is where an exponent's magnitude saturates: 2³⁰, far past any
// number Go holds (float64's largest exponent is 308), and small enough
// that adding the digit count of any argument text to it still fits a
// 32-bit int, so that the package builds and counts right on 386 and arm.
const expCap = 1 << 30

// parseDecimal reads s, the text of a JSON number. It reports false for
// text that is not one.
func parseDecimal(s string) (d decimal, ok bool) {
	n, ok := scanNumber(s)
	if !ok {
		return d, false
	}
	return n.decimal(), true
}

// numberText is a JSON number's parts, as written.
type numberText struct {
	neg     bool
	intPart string
	frac    string
	exp     int // the exponent's magnitude, saturated at expCap
	expNeg  bool
}

// scanNumber splits s by JSON's number grammar, reporting false for text
// that does not follow it.
func scanNumber(s string) (n numberText, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		n.neg = true
		i++
	}
	n.intPart, i = digitRun(s, i)
	if n.intPart == "" || len(n.intPart) > 1 && n.intPart[0] == '0' {
		return n, false
	}
	if i < len(s) && s[i] == '.' {
		if n.frac, i = digitRun(s, i+1); n.frac == "" {
			return n, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			n.expNeg = s[i] == '-'
			i++
		}
		var e string
		if e, i = digitRun(s, i); e == "" {
			return n, false
		}
		n.exp = exponent(e)
	}
	return n, i == len(s)
}

// exponent is the decimal digits e as an int, saturated at expCap.
func exponent(e string) int {
	e = strings.TrimLeft(e, "0")
	if len(e) > len("1073741824") { // expCap's digits
		return expCap
	}
	v, _ := strconv.Atoi(e) // "" (all zeros) is 0; 10 digits fit 64 bits, and Atoi saturates 32
	return min(v, expCap)
}

// digitRun returns the decimal digits of s from i on, and where they end.
func digitRun(s string, i int) (string, int) {
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[start:i], i
}

// decimal normalises n: the digits of intPart+frac without leading or
// trailing zeros, read without concatenating them, and the exponent of
// the last one kept.
func (n numberText) decimal() decimal {
	at := func(k int) byte {
		if k < len(n.intPart) {
			return n.intPart[k]
		}
		return n.frac[k-len(n.intPart)]
	}
	lo, hi := 0, len(n.intPart)+len(n.frac)
	for lo < hi && at(lo) == '0' {
		lo++
	}
	for hi > lo && at(hi-1) == '0' {
		hi--
	}
	if lo == hi {
		return decimal{} // zero, whatever its sign or exponent
	}
	d := decimal{neg: n.neg}
	exp := n.exp
	d.huge = exp >= expCap
	if n.expNeg {
		exp = -exp
	}
	var b strings.Builder
	b.Grow(hi - lo)
	for k := lo; k < hi; k++ {
		b.WriteByte(at(k))
	}
	d.digits = b.String()
	// The last kept digit sits at position hi-1, worth
	// 10^(exp+len(intPart)-hi).
	d.exp = exp + len(n.intPart) - hi
	return d
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
		return cmp.Compare(ma, mb)
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
			return cmp.Compare(x, y)
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
