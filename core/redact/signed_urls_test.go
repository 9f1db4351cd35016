package redact_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

// A signed URL's signature, credential and token parameters are secrets,
// decided by the parameter's name through IsSecretKey; its expiry, version
// and other parameters stay, and so does a URL that carries no signature.
func TestSignedURLParameters(t *testing.T) {
	t.Parallel()
	cases := []ruleCase{
		{"AWS SigV4",
			`GET https://shop.s3.amazonaws.com/x.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024 returned 403`,
			[]string{"fe5f80f77d5fa3be", "AKIAIOSFODNN7EXAMPLE%2F"},
			[]string{"X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Expires=900", "X-Amz-SignedHeaders=host", "X-Amz-Signature=[REDACTED]", "returned 403"}},
		{"AWS session token", `?X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr%2F%2F%2F&X-Amz-Date=20260101T000000Z`,
			[]string{"IQoJb3JpZ2luX2VjEJr"}, []string{"X-Amz-Date=20260101T000000Z"}},
		{"short AWS signature", `?X-Amz-Signature=abc123&x=1`, []string{"abc123"}, []string{"x=1"}},
		{"GCS V4",
			`https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40proj.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=8b2a0c8e3f`,
			[]string{"svc%40proj", "8b2a0c8e3f"}, []string{"X-Goog-Expires=600", "X-Goog-Date=20260101T000000Z"}},
		{"Azure SAS",
			`https://shop.blob.core.windows.net/c/x.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&st=2025-12-31T00:00:00Z&spr=https&sig=lQv7%2BQ4nB0e0%3D failed`,
			[]string{"lQv7%2BQ4nB0e0"}, []string{"sv=2022-11-02", "se=2026-01-01T00:00:00Z", "sp=r", "sig=[REDACTED] failed"}},
		{"CloudFront",
			`https://d111111abcdef8.cloudfront.net/x.jpg?Expires=1767225600&Signature=nitfHRCrtziwO2HwPfWw~yYDhUF5EwRunQA-j19DzZrvDh6hQ73lDx~-ar3UocvvRQVw6EkC~GdpGQyyOSKQim-TxAnW7d8F5Kkai9HVx0FIu-5jcQb0UEmatEXAMPLE&Key-Pair-Id=K2JCJMDEHXQW5F`,
			[]string{"nitfHRCrtziwO2HwPfWw", "K2JCJMDEHXQW5F"}, []string{"Expires=1767225600"}},
		{"generic", `GET /cb?code=7&access_token=tok3n&state=2&auth=s3cr3t&signature=s1g&token=t0k failed`,
			[]string{"tok3n", "s3cr3t", "s1g", "t0k"}, []string{"code=7", "state=2", "failed"}},
		{"no signature", `GET https://api.example.com/v1/orders?page=2&limit=50&sort=desc returned 500`, nil,
			[]string{"https://api.example.com/v1/orders?page=2&limit=50&sort=desc returned 500"}},
		{"signature metadata", `signature_version=4 sig_count=2 signature_method=HMAC-SHA1`, nil,
			[]string{"signature_version=4 sig_count=2 signature_method=HMAC-SHA1"}},
	}
	for _, tc := range cases {
		tc.check(t)
	}
	for _, k := range []string{"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "X-Goog-Signature",
		"X-Goog-Credential", "sig", "Signature", "Key-Pair-Id", "signature", "webhookSignature"} {
		assert.True(t, redact.IsSecretKey(k), k)
	}
	for _, k := range []string{"se", "sv", "sp", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Algorithm",
		"Expires", "signature_version", "signature_method", "pair_id", "key_id", "design", "signal"} {
		assert.False(t, redact.IsSecretKey(k), k)
	}
}
