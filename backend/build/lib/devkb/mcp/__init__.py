"""devkb over the Model Context Protocol, for coding agents: ``devkb mcp`` (stdio) and ``/mcp`` in
``devkb serve`` (streamable HTTP). ``server.py`` builds the server from the parts the container
hands over (``parts.py``); ``tools.py`` and ``resources.py`` declare what it offers; ``auth.py``
says who may call it; ``http.py`` mounts it in the API."""
