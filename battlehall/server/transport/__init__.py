"""The sockets' edge: uvicorn's HTTP protocol, a client's WebSocket under websockets'
sans-I/O protocol, the session speaking the match protocol over it, a resumed socket's
history, and what one client address may hold."""
