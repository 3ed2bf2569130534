"""The HTTP side: the Starlette app and its routes, the web client's pages, the API key's
check, and the limits and checks of requests."""
