"""Agents on the same store: the ``dsh-memory mcp`` server and the pending agent proposals it creates.

``core.mcp.agent`` holds what the tools do (Qt-free and MCP-free, so tests drive it directly), with
``handles`` (the signed ``observed`` handles writes are checked against), ``edits`` (partial edits)
and ``insight`` (scope rule, links, recent changes); ``core.mcp.tools`` the tool schemas and prompts;
``core.mcp.server`` binds it all to the official MCP SDK over stdio and ``core.mcp.http`` over
Streamable HTTP (imported only by ``dsh-memory mcp``). What agents propose is stored and reviewed by
``core.consolidation.agent_proposals`` (the review side must not import this package). See docs/mcp.md.
"""
