package validate

import (
	"reflect"
	"strings"
	"testing"
)

// parseDecimal reads JSON's number grammar exactly, in one pass, and
// normalises every spelling of a value to one decimal.
func TestParseDecimal(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]decimal{
		"0": {}, "-0": {}, "0.000": {}, "0e99": {}, "-0.0e-5": {},
		"1":               {digits: "1"},
		"-1":              {neg: true, digits: "1"},
		"10":              {digits: "1", exp: 1},
		"1.5":             {digits: "15", exp: -1},
		"0.05":            {digits: "5", exp: -2},
		"120.0300":        {digits: "12003", exp: -2},
		"1e2":             {digits: "1", exp: 2},
		"1E+2":            {digits: "1", exp: 2},
		"25e-3":           {digits: "25", exp: -3},
		"-9.9e1":          {neg: true, digits: "99", exp: 0},
		"1e1000000000":    {digits: "1", exp: 1000000000},
		"1e1073741823":    {digits: "1", exp: 1073741823},
		"1e0000000000005": {digits: "1", exp: 5},
		"1e1073741824":    {digits: "1", exp: expCap, huge: true},
		"1e1073741830":    {digits: "1", exp: expCap, huge: true},
		"1e2147483648":    {digits: "1", exp: expCap, huge: true},
		"1e99999999999":   {digits: "1", exp: expCap, huge: true},
		"1e-99999999999":  {digits: "1", exp: -expCap, huge: true},
		"10e-99999999999": {digits: "1", exp: -expCap + 1, huge: true},
		"3.40282346638528859811704183484516925440e38": {digits: "34028234663852885981170418348451692544", exp: 1},
	} {
		got, ok := parseDecimal(s)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("parseDecimal(%q) = %+v, %v; want %+v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "+1", "01", "00.1e1", "1.", ".5", "1e", "1e+", "1e-", "1x", "0x1", " 1", "1 ", "--1", "1.5.5", "1e5e5", "NaN", "Inf", "١"} {
		if d, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) = %+v, want not a number", s, d)
		}
	}
}

func TestCmpAbs(t *testing.T) {
	t.Parallel()
	d := func(s string) decimal {
		v, ok := parseDecimal(s)
		if !ok {
			t.Fatalf("%q", s)
		}
		return v
	}
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"0", "0", 0}, {"0", "1", -1}, {"1", "0", 1}, {"-5", "5", 0},
		{"9", "10", -1}, {"10", "9", 1}, {"0.5", "0.05", 1}, {"0.05", "0.5", -1},
		{"1.5", "1.50", 0}, {"1.5", "1.51", -1}, {"1.51", "1.5", 1}, {"15", "150e-1", 0},
		{"123", "124", -1}, {"124", "123", 1}, {"1e400", "9e399", 1}, {"9e399", "1e400", -1},
		{"3.4028234663852886e38", "3.40282346638528859811704183484516925440e38", 1},
	} {
		if got := cmpAbs(d(c.a), d(c.b)); got != c.want {
			t.Errorf("cmpAbs(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// integer and float hold a number to its Go type as JSON Schema would:
// integers may be written with fractions or exponents; bounds are the
// type's.
func TestIntegerAndFloatRanges(t *testing.T) {
	t.Parallel()
	i8 := &typeInfo{kind: kInt, bits: 8}
	u16 := &typeInfo{kind: kUint, bits: 16}
	i64 := &typeInfo{kind: kInt, bits: 64}
	u64 := &typeInfo{kind: kUint, bits: 64}
	for _, c := range []struct {
		ti          *typeInfo
		n, canon, r string
	}{
		{i8, "127", "127", ""}, {i8, "128", "", "max"}, {i8, "-128", "-128", ""}, {i8, "-129", "", "min"},
		{i8, "1.27e2", "127", ""}, {i8, "12.8e1", "", "max"}, {i8, "-0.0", "0", ""}, {i8, "1.5", "", "type"},
		{i8, "1e-1", "", "type"}, {i8, "x", "", "type"},
		{u16, "65535", "65535", ""}, {u16, "65536", "", "max"}, {u16, "-1", "", "min"}, {u16, "6.5535e4", "65535", ""},
		{i64, "9223372036854775807", "9223372036854775807", ""}, {i64, "9.223372036854775807e18", "9223372036854775807", ""},
		{i64, "9223372036854775808", "", "max"}, {i64, "-9223372036854775808", "-9223372036854775808", ""},
		{i64, "-9.223372036854775809e18", "", "min"}, {i64, "1e20", "", "max"}, {i64, "1e19", "", "max"},
		{u64, "18446744073709551615", "18446744073709551615", ""}, {u64, "1.8446744073709551615e19", "18446744073709551615", ""},
		{u64, "1.8446744073709551616e19", "", "max"}, {u64, "1e21", "", "max"}, {u64, "1e20", "", "max"},
	} {
		canon, rule, param, msg := integer(c.n, c.ti)
		if canon != c.canon || rule != c.r {
			t.Errorf("integer(%s, %d-bit kind %d) = %q, %q; want %q, %q", c.n, c.ti.bits, c.ti.kind, canon, rule, c.canon, c.r)
		}
		lo, hi := intRange(c.ti)
		switch rule {
		case "max":
			if param != string(hi) || msg != "must be at most "+string(hi) {
				t.Errorf("integer(%s): %q %q", c.n, param, msg)
			}
		case "min":
			if param != string(lo) || msg != "must be at least "+string(lo) {
				t.Errorf("integer(%s): %q %q", c.n, param, msg)
			}
		case "type":
			if param != "integer" || msg != "must be an integer" {
				t.Errorf("integer(%s): %q %q", c.n, param, msg)
			}
		}
	}
	f32 := &typeInfo{kind: kFloat, bits: 32}
	f64 := &typeInfo{kind: kFloat, bits: 64}
	for _, c := range []struct {
		ti   *typeInfo
		n, r string
	}{
		{f32, "3.4028234663852886e38", ""}, {f32, "-3.4028234663852886e38", ""}, {f32, "3.4028234663852887e38", "max"},
		{f32, "-3.5e38", "min"}, {f32, "1e-400", ""}, {f32, "x", "type"},
		{f64, "1.7976931348623157e308", ""}, {f64, "1e309", "type"}, {f64, "1e-400", ""},
	} {
		rule, param, msg := float(c.n, c.ti)
		if rule != c.r {
			t.Errorf("float(%s, %d) = %q, want %q", c.n, c.ti.bits, rule, c.r)
		}
		switch rule {
		case "max":
			if param != "3.4028234663852886e+38" || msg != "must be at most 3.4028234663852886e+38" {
				t.Errorf("float(%s): %q %q", c.n, param, msg)
			}
		case "min":
			if param != "-3.4028234663852886e+38" || msg != "must be at least -3.4028234663852886e+38" {
				t.Errorf("float(%s): %q %q", c.n, param, msg)
			}
		case "type":
			if param != "number" || !strings.HasPrefix(msg, "must be a number") && msg != "is out of range for a number" {
				t.Errorf("float(%s): %q %q", c.n, param, msg)
			}
		}
	}
}
