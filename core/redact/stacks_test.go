package redact_test

import (
	"runtime/debug"
	"testing"
)

// Stack traces of every runtime lose their frames and keep their message.
func TestStackTracesOfEveryRuntime(t *testing.T) {
	t.Parallel()
	cases := []ruleCase{
		{"go dump", "panic: boom\n\n" + string(debug.Stack()), []string{"runtime/debug", "debug.Stack", "stacks_test.go:", "goroutine "}, []string{"panic: boom"}},
		{"go headerless", "query failed\nmain.handler(0x1, 0x2)\n\t/src/app/main.go:12 +0x1d\ncreated by main.main in goroutine 1\n\t/src/app/main.go:30 +0x55\n",
			[]string{"main.go", "/src/app"}, []string{"query failed"}},
		{"java",
			"java.lang.IllegalStateException: order ORD-1 is closed\n\tat com.shop.orders.OrderService.cancel(OrderService.java:42)\n\tat com.shop.api.Handler.handle(Handler.java:17)\n\tat java.base/java.lang.Thread.run(Thread.java:833)\nCaused by: java.sql.SQLException: connection reset\n\tat org.postgresql.core.PGStream.receive(PGStream.java:120)\n\t... 12 more",
			[]string{"com.shop.orders", "OrderService.java", "Handler.java:17", "Thread.java", "PGStream", "12 more", "Caused by:"},
			[]string{"java.lang.IllegalStateException: order ORD-1 is closed"}},
		{"java one line", `failed: java.io.IOException: disk full at com.shop.Store.save(Store.java:88) at com.shop.Main.main(Main.java:5)`,
			[]string{"Store.java", "com.shop.Main"}, []string{"failed: java.io.IOException: disk full"}},
		{"java native and unknown", "boom\n\tat sun.nio.ch.Net.connect0(Native Method)\n\tat com.shop.X.y(Unknown Source)", []string{"sun.nio", "com.shop.X"}, []string{"boom"}},
		{"kotlin", "boom\n\tat com.shop.App.main(App.kt:9)", []string{"App.kt", "com.shop"}, []string{"boom"}},
		{"python",
			"Traceback (most recent call last):\n  File \"/app/shop/views.py\", line 3, in checkout\n    total = price / qty\n  File \"/app/shop/util.py\", line 9, in div\n    return a / b\n           ~~^~~\nZeroDivisionError: division by zero",
			[]string{"Traceback", "/app/shop", "views.py", "util.py", "price / qty", "return a / b"}, []string{"ZeroDivisionError: division by zero"}},
		{"python frame alone", `error in File "/srv/x.py", line 12, in handler`, []string{"/srv/x.py", "line 12"}, []string{"error in"}},
		{"python header alone", "Traceback (most recent call last):\nKeyError: 'users'", []string{"Traceback"}, []string{"KeyError: 'users'"}},
		{"node",
			"TypeError: Cannot read properties of undefined (reading 'id')\n    at getOrder (/app/src/orders.js:12:19)\n    at async Promise.all (index 0)\n    at async handler (/app/src/server.js:40:5)\n    at /app/node_modules/express/lib/router/layer.js:95:5\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
			[]string{"orders.js", "/app/src", "server.js", "layer.js", "task_queues", "getOrder ("}, []string{"TypeError: Cannot read properties of undefined (reading 'id')"}},
		{"node windows and urls", "boom\n    at Object.<anonymous> (C:\\app\\x.js:1:2)\n    at new Foo (file:///app/x.mjs:3:4)\n    at fn (https://cdn.example.com/app.min.js:1:2345)",
			[]string{"x.js", "x.mjs", "app.min.js"}, []string{"boom"}},
		{".NET",
			"System.InvalidOperationException: Order is closed\n   at Shop.Orders.OrderService.Cancel(Int32 id) in C:\\src\\Shop\\OrderService.cs:line 42\n   at Shop.Api.Handler.<Handle>b__0_0() in /src/Shop/Handler.cs:line 17\n   at System.Threading.Tasks.Task.Execute()\n--- End of stack trace from previous location ---\n   at Shop.Program.Main(String[] args)",
			[]string{"OrderService.cs", "Handler.cs", "Shop.Orders", "System.Threading", "Shop.Program", "End of stack trace"}, []string{"System.InvalidOperationException: Order is closed"}},
		{".NET one line", `failed at Shop.Db.Query() in /src/Db.cs:line 7 while saving`, []string{"Db.cs", "Shop.Db"}, []string{"failed", "while saving"}},
		{"rust panic", "thread 'main' panicked at src/main.rs:2:5:\nindex out of bounds", []string{"main.rs", "src/"}, []string{"thread 'main' panicked at", "index out of bounds"}},
		{"rust backtrace",
			"thread 'tokio-runtime-worker' panicked at 'boom', src/orders.rs:10:9\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:578:5\n   1: shop::orders::cancel\n             at ./src/orders.rs:5:9\nnote: run with `RUST_BACKTRACE=full` for a verbose backtrace.",
			[]string{"orders.rs", "rust_begin_unwind", "panicking.rs", "shop::orders::cancel", "/rustc/"}, []string{"panicked at 'boom'", "RUST_BACKTRACE=full"}},
		// What reads like a frame but is not one stays.
		{"english at", `the job failed at 10:30:45 at the warehouse; look at Order.cancel() and retry at https://status.example.com`, nil, nil},
		{"file words", `the file "report", line 3 of the invoice is wrong; see chapter 2: traceback of orders`, nil, nil},
		{"numbered list", "steps:\n   0: list orders\n   1: cancel the order", nil, nil},
		{"java-like prose", `at least one of com.shop.Order or Item(s) is required`, nil, nil},
	}
	for _, tc := range cases {
		tc.check(t)
	}
}
