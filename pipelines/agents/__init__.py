"""What ratecard offers agents: a Model Context Protocol server over the published snapshot (`ratecard mcp`)."""
