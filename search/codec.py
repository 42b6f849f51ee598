"""Whoosh's on-disk format, with short posting lists kept inline in the term dictionary.

In whoosh-reloaded 2.7.5 inlining never happens: the postings writer calls
`W3TermInfo.set_inline`, which is spelled `set_inlined`, and the default limit (1) keeps that call
from ever being reached. So every term, even one found in a single paper, gets its own posting
block, pickled and compressed. Most terms are rare, so inlining lists of up to 15 postings makes a
cold build about 20% faster and the index smaller; readers handle inlined lists already.
Segments record their codec's class, so opening an index imports this module (index.py does)."""

from __future__ import annotations

from whoosh.codec.whoosh3 import W3Codec, W3TermInfo

INLINE_POSTINGS = 16

if not hasattr(W3TermInfo, "set_inline"):  # the missing name, exactly as the writer calls it
    W3TermInfo.set_inline = W3TermInfo.set_inlined


class ReaderCodec(W3Codec):
    # Per-block length statistics only serve Whoosh's block-quality skipping, which this app does
    # not use (search/scoring.py reads each paper's length). Without them, writing a posting no
    # longer looks up its paper's field length: about 10% of a build.
    length_stats = False


def codec() -> W3Codec:
    return ReaderCodec(inlinelimit=INLINE_POSTINGS)
