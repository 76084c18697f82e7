"""The load benchmark behind `manage.py load_bench`: seeding, a server, an asyncio driver."""
