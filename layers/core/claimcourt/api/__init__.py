"""The HTTP and WebSocket APIs: thin Powertools handlers over runs.py, access.py and the store."""
