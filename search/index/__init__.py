"""The search index: one Whoosh index (a shard) per corpus file in the cache dir, its schema,
analysis and on-disk codec, and building shards in child processes.

Imports search.models, search.text and Whoosh; never queries, user data or the interface.
"""
