"""The HTTP API (FastAPI): one router per resource, thin handlers, errors mapped in one place."""
