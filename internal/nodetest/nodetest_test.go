package nodetest_test
import ("testing"; "github.com/mcpguard/mcpguard/internal/nodetest")
func TestDir(t *testing.T){ t.Log(nodetest.Bin(t, "mcp-server-memory")) }
