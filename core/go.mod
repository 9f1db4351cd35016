module github.com/mcpguard/mcpguard/core

go 1.25.5

require github.com/mcpguard/mcpguard/internal v0.0.0

replace github.com/mcpguard/mcpguard/internal => ../internal
