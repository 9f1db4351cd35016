package redact_test

import (
	"math/rand/v2"
	"testing"
)

// Vendor tokens are found by their prefix, whatever surrounds them.
func TestVendorTokens(t *testing.T) {
	t.Parallel()
	cases := []ruleCase{
		{"slack bot", `slack said invalid_auth for xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx`, []string{"AbCdEfGhIjKlMnOp"}, []string{"invalid_auth for"}},
		{"slack user", `xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef revoked`, []string{"0123456789abcdef"}, []string{"revoked"}},
		{"slack app", `socket mode with xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123 failed`, []string{"A0123456789-1234567890123"}, []string{"failed"}},
		{"stripe secret", `charge failed with sk_live_51HxyzABCDEF0123456789abcdef`, []string{"51HxyzABCDEF"}, []string{"charge failed with"}},
		{"stripe restricted", `rk_live_51HxyzABCDEF0123456789abcdef lacks a permission`, []string{"51HxyzABCDEF"}, []string{"lacks a permission"}},
		{"stripe webhook", `bad signing secret whsec_0123456789abcdefABCDEF0123456789`, []string{"0123456789abcdefABCDEF"}, nil},
		{"gitlab pat", `gitlab glpat-Abcdefghij0123456789 revoked`, []string{"Abcdefghij0123456789"}, []string{"revoked"}},
		{"gitlab runner", `runner glrt-t1_AbCdEfGhIjKlMnOpQrSt rejected`, []string{"AbCdEfGhIjKlMnOpQrSt"}, []string{"rejected"}},
		{"npm", `npm ERR! 401 with npm_abcdefghijklmnopqrstuvwxyz0123456789`, []string{"abcdefghijklmnopqrstuvwxyz0123456789"}, []string{"npm ERR! 401"}},
		{"pypi", `upload refused: pypi-AgEIcHlwaS5vcmcCJGE0ZDNmNTlkLTk1NDAtNDc3ZC1hMmU4LTE5YzE2OGYyN2Y0OAACJXsicGVybWlzc2lvbnMiOiAidXNlciJ9`, []string{"AgEIcHlwaS5vcmc", "ZC1hMmU4"}, []string{"upload refused"}},
		{"sendgrid", `mail SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc 401`, []string{"abcdefghijklmnopqrstuv"}, []string{"401"}},
		{"google api key", `maps AIzaSyA1234567890abcdefghijklmnopqrstu over quota`, []string{"SyA1234567890abcdefghij"}, []string{"over quota"}},
		{"google oauth", `oauth said ya29.a0AfH6SMBx3Kq-0123456789abcdefghij expired`, []string{"a0AfH6SMBx3Kq"}, []string{"expired"}},
		{"hugging face", `hub hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 denied`, []string{"AbCdEfGhIjKlMnOpQrSt"}, []string{"denied"}},
		{"digitalocean", `doctl: dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef unauthorized`, []string{"0123456789abcdef0123"}, []string{"unauthorized"}},
		{"digitalocean oauth", `doo_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`, []string{"0123456789abcdef0123"}, nil},
		{"shopify", `shop returned 401 for shpat_0123456789abcdef0123456789abcdef`, []string{"0123456789abcdef0123"}, []string{"shop returned 401 for"}},
		{"shopify shared secret", `shpss_0123456789abcdef0123456789abcdef mismatch`, []string{"0123456789abcdef0123"}, []string{"mismatch"}},
		{"github", `clone with ghp_16C7e42F292c6912E7710c838347Ae178B4a failed`, []string{"16C7e42F292c6912E7710c8"}, []string{"failed"}},
		{"short prefixes stay", `use npm_modules, hf_hub and the SG.1 region; glpat-x is too short`, nil,
			[]string{"use npm_modules, hf_hub and the SG.1 region; glpat-x is too short"}},
	}
	for _, tc := range cases {
		tc.check(t)
	}
}

// A token whose prefix we do not know is found by its shape: a long run of
// base64url characters, mixed case or letters and digits, that reads as
// no words. UUIDs, hex digests (commit SHAs, SHA-256, trace IDs) and long
// identifiers stay readable: agents pass them to the next call.
func TestHighEntropyTokens(t *testing.T) {
	t.Parallel()
	cases := []ruleCase{
		{"unknown vendor", `upstream rejected key Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7 for tenant 42`, []string{"Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7"}, []string{"upstream rejected key", "for tenant 42"}},
		{"in a URL path", `GET https://hooks.example.com/in/x2Fk9Qm7Lp3Zr8Tn5Vb1Wc6Yd4Hs0JaQ1 returned 410`, []string{"x2Fk9Qm7Lp3Zr8Tn5Vb1Wc6Yd4Hs0JaQ1"}, []string{"https://hooks.example.com/in/", "returned 410"}},
		{"base64url with separators", `client secret pi_3MtwBwLkdIwHu7ix28a3tqPa_secret_YrKJUKribcBjcG8HVhfZluoGH`, []string{"YrKJUKribcBjcG8HVhfZluoGH"}, []string{"client secret"}},
		{"lower case and digits", `invite k3j9x0q2m8v7c4b1n6z5l0p9r8t7y6w5e4 is not valid`, []string{"k3j9x0q2m8v7c4b1n6z5l0p9r8t7y6w5e4"}, []string{"is not valid"}},
		{"CloudFront policy", `?Policy=eyJTdGF0ZW1lbnQiOlt7IlJlc291cmNlIjoiaHR0cHM6Ly9kMTExMTExYWJjZGVmOC5jbG91ZGZyb250Lm5ldC8qIn1dfQ__&Expires=1`, []string{"eyJTdGF0ZW1lbnQiOlt7IlJlc291cmNl"}, []string{"Expires=1"}},
		{"quoted in JSON text", `{"detail":"rejected 9fKq2LmX7pT4vR8sW1yZ3nB6cD5hJ0gQ"}`, []string{"9fKq2LmX7pT4vR8sW1yZ3nB6cD5hJ0gQ"}, []string{`{"detail":"rejected `}},
		{"uuid", `order 550e8400-e29b-41d4-a716-446655440000 not found`, nil, nil},
		{"commit sha", `checkout 3f786850e387550fdab836ed7e6dc881de23001b failed`, nil, nil},
		{"sha256 digest", `pull shop@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 denied`, nil, nil},
		{"trace id", `trace 4bf92f3577b34da6a3ce929d0e0e4736 span 00f067aa0ba902b7`, nil, nil},
		{"snake identifier", `unknown tool shop_search_products_by_category_v2_extended`, nil, nil},
		{"camel identifier", `TestHandlerRedactsWhatTheDefaultHandlerPrints2 failed`, nil, nil},
		{"java class", `no class org-apache-commons-lang3-StringUtils-isBlank2 found`, nil, nil},
		{"kebab resource", `projects-my-project-123456-locations-us-central1 missing`, nil, nil},
		{"repeated", `value aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 too long`, nil, nil},
		{"short random", `request id 01ARZ3NDEKTSV4RRFFQ69G5FAV failed`, nil, nil},
		{"sentence", `pq: relation "users" does not exist; check the migrations of the shop database`, nil, nil},
	}
	for _, tc := range cases {
		tc.check(t)
	}
}

// The token scan is linear: a long run of token characters costs one pass.
func TestHighEntropyScanIsBounded(t *testing.T) {
	t.Parallel()
	run := randomToken(64 << 10)
	ruleCase{"a 64 KiB run", "key " + run + " rejected", []string{run[:32], run[len(run)-32:]}, []string{"key", "rejected"}}.check(t)
}

// randomToken returns n pseudo-random base62 characters, the same on every
// run.
func randomToken(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	rng := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}
