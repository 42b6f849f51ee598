"""The search index: one Whoosh index (a shard) per corpus file in the cache dir, its schema,
analysis and on-disk codec, building shards in child processes, and the open index guarded against
damage while it is read (guard.py).

Imports search.models, search.text and Whoosh; never queries, user data or the interface.
"""
