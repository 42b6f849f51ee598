"""The iclr-reader engine: corpora, markup conversion, the Whoosh index, queries and user data.

It never imports Textual or Rich, so everything here is usable and testable without a terminal.
"""

__version__ = "0.1.0"
