"""The accounts API: agents (a person's), an app's people and their tokens, and staff's
apps. Each module holds the views of one of them."""
