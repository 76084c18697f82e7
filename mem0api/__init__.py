"""mem0's platform API over this server's memory, so mem0's own SDK works against it:

    MemoryClient(api_key="gaia_app_...", host="http://127.0.0.1:8000/mem0")

An edge only (views, serializers, urls): every read and write goes through the services
and selectors of accounts, conversations, memory, learning and privacy. mem0's `user_id`
is one of the app's people (`accounts.people`), `agent_id` that person's agent, `run_id`
a conversation session; memory ids are our item ids as strings. See docs/mem0.md.
"""
