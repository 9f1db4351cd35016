module github.com/mcpguard/mcpguard/e2e/nodetest

go 1.25.5
