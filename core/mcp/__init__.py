"""Agents on the same store: the ``dsh-memory mcp`` server and the pending agent proposals it creates.

``core.mcp.agent`` holds what the tools do (Qt-free and MCP-free, so tests drive it directly);
``core.mcp.server`` binds it to the official MCP SDK over stdio (imported only by ``dsh-memory mcp``);
``core.mcp.proposals`` stores and reviews what agents proposed.
"""
