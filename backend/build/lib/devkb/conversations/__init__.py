"""Conversations and chat session state: the memory of each chat session, in this process or in
the graph store. Below ``api/`` (which serves them) and the container (which builds them)."""
