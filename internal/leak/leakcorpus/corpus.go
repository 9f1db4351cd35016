// Package leakcorpus is the table of leak shapes that mcpguard's redaction
// is held to, shared by the SDK-neutral core's tests (every text, JSON and
// log position) and each SDK front's (every delivery path on the wire), so
// that both prove the same table.
package leakcorpus

import "runtime/debug"

// Shape is one way a secret or an internal detail reaches error text.
type Shape struct {
	Category string
	Text     string
	Secrets  []string // none of these may reach a client or a shipped log
}

// Shapes returns the table: every category of the hardening issues, in
// the shapes real servers, drivers and runtimes print them, and a Go panic
// with the caller's own goroutine stack.
func Shapes() []Shape {
	stack := Shape{"stack", "panic: boom\n\n" + string(debug.Stack()), []string{"runtime/debug", "debug.Stack", "_test.go:"}}
	return append(append([]Shape(nil), shapes...), stack)
}

const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\nygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----"

func s(category, text string, secrets ...string) Shape { return Shape{category, text, secrets} }

var shapes = []Shape{
	// Secret-named keys, in every spelling and value type.
	s("pairs", `connect failed: DB_PASSWORD=Pw0001xyz DB_HOST=db`, "Pw0001xyz"),
	s("pairs", `AWS_SECRET_ACCESS_KEY=Pw0002/K7MDENG/bPxRfiCY`, "Pw0002"),
	s("pairs", `GITHUB_TOKEN=Pw0003abc make push`, "Pw0003abc"),
	s("pairs", `config dbPassword=Pw0004xyz rejected`, "Pw0004xyz"),
	s("pairs", `oauth clientSecret=Pw0005xyz invalid`, "Pw0005xyz"),
	s("pairs", "config.yaml:\n  db_password: Pw0006 xyz horse\n  host: db", "Pw0006"),
	s("pairs", `upstream body {"db_password": "Pw0007xyz", "user": "app"}`, "Pw0007xyz"),
	s("pairs", `upstream body {"pin_password": 80080808}`, "80080808"),
	s("pairs", `upstream body {"api_keys": ["Pw0009a", "Pw0009b"]}`, "Pw0009a", "Pw0009b"),
	s("pairs", `settings {'db_password': 'Pw0010xyz', 'user': 'app'}`, "Pw0010xyz"),
	s("pairs", "environ: PATH=/usr/bin\x00DB_PASSWORD=Pw0011xyz\x00LANG=C", "Pw0011xyz"),
	s("pairs", "request headers: X-Api-Key: Pw0012xyz\nAccept: */*", "Pw0012xyz"),
	s("pairs", `request had Authorization: Bearer Pw0013xyz`, "Pw0013xyz"),
	s("pairs", `request had Authorization: Basic UHcwMDE0eHl6OnB3`, "UHcwMDE0eHl6OnB3"),
	s("pairs", `sent Cookie: session=Pw0015xyz; theme=dark`, "Pw0015xyz"),
	s("pairs", `form password_confirmation=Pw0016xyz mismatch`, "Pw0016xyz"),
	s("pairs", `spring.datasource.password=Pw0017xyz`, "Pw0017xyz"),
	s("pairs", `MYSQL_ROOT_PASSWORD=Pw0018xyz not accepted`, "Pw0018xyz"),
	s("pairs", `GET /cb?code=1&access_token=Pw0019xyz&state=2 failed`, "Pw0019xyz"),
	s("pairs", `api_key: "Pw0020 xyz"`, "Pw0020"),
	s("pairs", `{"secret": {"value": "Pw0021xyz"}}`, "Pw0021xyz"),
	s("pairs", `raw {\"client_secret\":\"Pw0022xyz\"}`, "Pw0022xyz"),
	s("pairs", `%v = map[password:Pw0023xyz user:app]`, "Pw0023xyz"),
	s("pairs", `cfg {Host:db Password:Pw0024xyz Port:5432}`, "Pw0024xyz"),
	s("pairs", `Server=db;User Id=sa;Password=Pw0025xyz;Encrypt=true`, "Pw0025xyz"),
	s("pairs", `session_id=Pw0026xyz expired`, "Pw0026xyz"),
	s("pairs", `refresh_token: Pw0027xyz`, "Pw0027xyz"),
	s("pairs", `PGPASSWORD=Pw0028xyz psql -h db`, "Pw0028xyz"),
	s("pairs", `params {:password => "Pw0029xyz"}`, "Pw0029xyz"),
	s("pairs", `x-api-key=Pw0030xyz`, "Pw0030xyz"),
	s("pairs", `client-secret: Pw0031xyz`, "Pw0031xyz"),
	s("pairs", `{"newPassword":"Pw0032 with spaces"}`, "Pw0032"),
	s("pairs", `DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=Pw0033xyz==;EndpointSuffix=core`, "Pw0033xyz"),
	s("pairs", `docker run -e POSTGRES_PASSWORD='Pw0034xyz' postgres`, "Pw0034xyz"),
	s("pairs", `"authorization": "Pw0035xyz"`, "Pw0035xyz"),
	s("pairs", `passwd=Pw0036xyz`, "Pw0036xyz"),
	// URLs and DSNs.
	s("dsn", `dial postgres://app:Pw0040xyz@db:5432/shop: refused`, "Pw0040xyz"),
	s("dsn", `mysql://root:Pw0041xyz@db:3306/shop`, "Pw0041xyz"),
	s("dsn", `mongodb+srv://svc:Pw0042xyz@cluster0.mongodb.net/x`, "Pw0042xyz"),
	s("dsn", `redis://:Pw0043xyz@cache:6379/0 refused`, "Pw0043xyz"),
	s("dsn", `amqp://guest:Pw0044xyz@mq:5672/`, "Pw0044xyz"),
	s("dsn", `dsn root:Pw0045xyz@tcp(db:3306)/shop?parseTime=true`, "Pw0045xyz"),
	s("dsn", `dsn app:Pw0046xyz@unix(/var/run/mysqld.sock)/shop`, "Pw0046xyz"),
	s("dsn", `postgres://app:Pw0047@xyz@db/shop`, "Pw0047", "xyz@db"),
	s("dsn", `postgres://app:Pw0048/xyz@db/shop`, "Pw0048"),
	s("dsn", `GET https://bob:Pw0049xyz@api.example.com/v1 -> 500`, "Pw0049xyz"),
	s("dsn", `ftp://u:Pw0050xyz@files.example.com/pub`, "Pw0050xyz"),
	s("dsn", `jdbc:postgresql://db/shop?user=app&password=Pw0051xyz`, "Pw0051xyz"),
	s("dsn", `smtp://mailer:Pw0052xyz@smtp.example.com:587`, "Pw0052xyz"),
	// Token and key shapes.
	s("tokens", `bad session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`, "eyJzdWIiOiIxMjM0In0"),
	s("tokens", `invalid key sk-proj-AbCdEf0123456789GhIjKlMn`, "AbCdEf0123456789"),
	s("tokens", `key sk-ant-api03-ZyXwVu0123456789TsRqPo rejected`, "ZyXwVu0123456789"),
	s("tokens", `charge failed with sk_live_4eC39HqLyjWDarjtT1zdp7dc`, "4eC39HqLyjWDarjtT1zdp7dc"),
	s("tokens", `restricted rk_test_51HxyzABCDEF0123456789`, "51HxyzABCDEF0123456789"),
	s("tokens", `AccessDenied for AKIAIOSFODNN7EXAMPLE on bucket`, "AKIAIOSFODNN7EXAMPLE"),
	s("tokens", `temp creds ASIAY34FZKBOKMUTVV7A expired`, "ASIAY34FZKBOKMUTVV7A"),
	s("tokens", `clone with ghp_16C7e42F292c6912E7710c838347Ae178B4a failed`, "16C7e42F292c6912E7710c838347Ae178B4a"),
	s("tokens", `oauth gho_16C7e42F292c6912E7710c838347Ae178B4b`, "16C7e42F292c6912E7710c838347Ae178B4b"),
	s("tokens", `github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv rejected`, "abcdefghijklmnopqrstuv"),
	s("tokens", `gitlab glpat-Abcdefghij0123456789 revoked`, "Abcdefghij0123456789"),
	s("tokens", `slack xoxb-1234567890-abcdefghijKLM`, "abcdefghijKLM"),
	s("tokens", `slack xoxp-9876543210-zyxwvutsrqPON`, "zyxwvutsrqPON"),
	s("tokens", `maps AIzaSyA1234567890abcdefghijklmnopqrstu quota`, "SyA1234567890abcdefghij"),
	s("tokens", `npm npm_abcdefghijklmnopqrstuvwxyz0123456789 401`, "abcdefghijklmnopqrstuvwxyz0123456789"),
	s("tokens", `hub hf_abcdefghijklmnopqrstuvwxyzABCDEFGH denied`, "abcdefghijklmnopqrstuvwxyzABCDEFGH"),
	s("tokens", `mail SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 401`, "abcdefghijklmnopqrstuv"),
	s("tokens", `post https://hooks.slack.com/services/T000/B000/Pw0070xyzSECRET failed`, "Pw0070xyzSECRET"),
	s("tokens", "key:\n"+pem+"\nend", "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "ygWyF8PbnGy0AHB7"),
	s("tokens", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
	s("tokens", `upstream said Bearer Pw0073abcdefghijkl rejected`, "Pw0073abcdefghijkl"),
	s("tokens", `GET https://bucket.s3.amazonaws.com/x?X-Amz-Signature=Pw0074abcdef0123456789`, "Pw0074abcdef"),
	s("tokens", `token Pw0075abcdefghijk expired`, "Pw0075abcdefghijk"),
	// Stack traces, goroutine dumps and source positions.
	s("stack", "goroutine 7 [running]:\nmain.handler(0x1)\n\t/srv/app/main.go:42 +0x1d", "main.go:42", "/srv/app"),
	s("stack", "query failed\nmain.handler(0x1, 0x2)\n\t/src/app/main.go:12 +0x1d\ncreated by main.main in goroutine 1\n\t/src/app/main.go:30 +0x55", "main.go", "/src/app"),
	s("stack", `failed at /home/dev/shop/internal/db/query.go:42 +0x1d`, "query.go:42", "/home/dev"),
	s("stack", `failed in db.go:42`, "db.go:42"),
	s("stack", `at /home/ålice/src/db.go:17:3`, "ålice", "db.go:17"),
	s("stack", `C:\src\shop\db.go:12 failed`, "db.go:12", `src\shop`),
	// Paths.
	s("paths", `open /var/lib/shop/secrets.yaml: permission denied`, "/var/lib/shop", "secrets.yaml"),
	s("paths", `open /home/bob/My Documents/tax.pdf: denied`, "/home/bob", "Documents", "tax.pdf"),
	s("paths", `open /home/ålice/nötes/x.md: denied`, "ålice", "nötes"),
	s("paths", `open C:\Users\bob\shop\config.ini: access is denied`, `Users\bob`, "config.ini"),
	s("paths", `open C:/Users/bob/config.ini failed`, "Users/bob", "config.ini"),
	s("paths", `body {\"path\":\"C:\\\\Users\\\\bob\\\\x.ini\"}`, "Users", "bob"),
	s("paths", `open \\fileserver\share\bob\x.txt failed`, "fileserver", "share", "x.txt"),
	s("paths", `fetch file:///etc/shop/secret.yaml: denied`, "/etc/shop", "secret.yaml"),
	s("paths", `PATH=/usr/local/bin:/opt/shop/bin`, "/usr/local", "/opt/shop"),
	s("paths", "open `/srv/shop/x.db` failed", "/srv/shop"),
	s("paths", `opts {/srv/shop/y.db}`, "/srv/shop"),
	s("paths", `config:/etc/shop/z.conf unreadable`, "/etc/shop"),
	s("paths", `(see /opt/shop/logs/app.log)`, "/opt/shop"),
	s("paths", `C:\Program Files (x86)\Shop\app.exe crashed`, "Program", "Shop", "app.exe"),
	s("paths", `{"file": "/home/carol/.ssh/id_rsa"}`, "/home/carol", "id_rsa"),
	s("paths", `failed to write file /var/lib/app/db_password=hunter2/memory.json`, "hunter2", "/var/lib", "memory.json"),
	s("paths", `open /data/year=2024/month=01/part-0.parquet: no such file`, "/data", "month=01", "part-0.parquet"),
	s("paths", `open /srv/a/token=tk-9f8e7d6c5b/x(1).json: denied`, "tk-9f8e7d6c5b", "x(1)", ".json"),
	// Signed URLs: every signature, credential and token parameter.
	s("signed-url", `GET https://b.s3.amazonaws.com/x?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101&X-Amz-Signature=Pw0100abc&X-Amz-Security-Token=Pw0101xyz&X-Amz-Expires=900 -> 403`, "Pw0100abc", "Pw0101xyz", "AKIAIOSFODNN7EXAMPLE"),
	s("signed-url", `https://storage.googleapis.com/b/o?X-Goog-Credential=svc%40Pw0102.iam&X-Goog-Signature=Pw0103abc`, "Pw0102", "Pw0103abc"),
	s("signed-url", `https://a.blob.core.windows.net/c/x?sv=2022-11-02&se=2026-01-01&sig=Pw0104%2Babc%3D`, "Pw0104"),
	s("signed-url", `https://d1.cloudfront.net/x.jpg?Expires=1&Signature=Pw0105~abc-def~ghi&Key-Pair-Id=Pw0106KPID`, "Pw0105", "abc-def~ghi", "Pw0106KPID"),
	// Tokens: vendor prefixes and unknown ones.
	s("tokens", `socket mode xapp-1-A0123456789-1234567890123-Pw0110abcdef failed`, "Pw0110abcdef"),
	s("tokens", `signing secret whsec_Pw0111abcdefghijklmnopqrstuv`, "Pw0111abcdefghij"),
	s("tokens", `runner glrt-Pw0112abcdefghijklmnopqrstuv rejected`, "Pw0112abcdefghij"),
	s("tokens", `upload pypi-AgEIcHlwaS5vcmcCJPw0113ZmNTlkLTk1NDAtNDc3ZC1hMmU4LTE5YzE2OGYyN2Y0OAACJXsicGVybWlzc2lvbnMi refused`, "Pw0113ZmNTlk"),
	s("tokens", `doctl dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef 401`, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
	s("tokens", `shop 401 for shpat_0123456789abcdef0123456789abcdef`, "0123456789abcdef0123456789abcdef"),
	s("tokens", `oauth said ya29.Pw0116AfH6SMBx3Kq0123456789abcdefghij expired`, "Pw0116AfH6SMBx3Kq"),
	s("tokens", `upstream rejected key Pw0117uag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7 for tenant 42`, "Pw0117uag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7"),
	// Other runtimes' stack traces.
	s("stack", "java.lang.IllegalStateException: closed\n\tat com.shop.Pw0120.cancel(OrderService.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)\nCaused by: java.sql.SQLException: reset\n\t... 12 more", "Pw0120", "OrderService.java", "Thread.java"),
	s("stack", "Traceback (most recent call last):\n  File \"/app/Pw0121/views.py\", line 3, in checkout\n    total = price / qty\nZeroDivisionError: division by zero", "Pw0121", "views.py", "price / qty"),
	s("stack", "TypeError: x is undefined\n    at getOrder (/app/Pw0122/orders.js:12:19)\n    at async handler (/app/src/server.js:40:5)", "Pw0122", "orders.js", "server.js"),
	s("stack", "System.InvalidOperationException: closed\n   at Shop.Pw0123.Cancel(Int32 id) in C:\\src\\OrderService.cs:line 42\n   at Shop.Program.Main(String[] args)", "Pw0123", "OrderService.cs", "Shop.Program"),
	s("stack", "thread 'main' panicked at src/Pw0124.rs:2:5:\nboom\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/abc/library/std/src/panicking.rs:578:5", "Pw0124", "panicking.rs", "rust_begin_unwind"),
}

// Readable texts must survive every path unchanged.
var Readable = []string{`pq: relation "users" does not exist`, `token_count=5`, `next_page_token=abc123`}
