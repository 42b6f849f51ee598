"""Whoosh's on-disk format, written faster. The files are byte for byte what Whoosh's own writer
writes with the same settings (tests/search/test_codec.py); only the Python work shrinks.

Inlining: in whoosh-reloaded 2.7.5 it never happens: the postings writer calls
`W3TermInfo.set_inline`, which is spelled `set_inlined`, and the default limit (1) keeps that call
from ever being reached. So every term, even one found in a single paper, gets its own posting
block, pickled and compressed. Most terms are rare, so inlining lists of up to 15 postings makes a
cold build about 20% faster and the index smaller; readers handle inlined lists already.

Term at a time: Whoosh's FieldWriter.add_postings makes four Python calls per posting (a million
for the 10,750 real papers). The field writer below takes each term's postings at once, grouped as
they were added (writer.py); a rare term's inlined entry is packed directly, a common term's
postings fill blocks in slices. Whoosh's own SegmentWriter, with this codec, still works through
Whoosh's loop. The files' positions are counted rather than asked of the OS.

Segments record their codec's class, so opening an index imports this module (shard.py does)."""

from __future__ import annotations

import struct
from array import array
from hashlib import md5
from itertools import chain
from operator import sub
from pickle import dumps

from whoosh.codec.whoosh3 import W3Codec, W3FieldWriter, W3PostingsWriter, W3TermInfo
from whoosh.filedb.filetables import OrderedHashWriter
from whoosh.system import pack_ushort

INLINE_POSTINGS = 16
POSTINGS_COMPRESSION = 1
"""zlib's level for posting blocks. Whoosh's default (3) took 0.54 s of a 10,000-paper list's build
(7-8 s of CPU), level 1 0.45 s for 2% more bytes; no compression would save it all but triple the
postings (0.3 GB more at 100,000 papers), which every start reads to check them (shard.verified):
70 ms more CPU per start there. Each block records its level: indexes written before read as ever."""

if not hasattr(W3TermInfo, "set_inline"):  # the missing name, exactly as the writer calls it
    W3TermInfo.set_inline = W3TermInfo.set_inlined


class ReaderCodec(W3Codec):
    # Per-block length statistics only serve Whoosh's block-quality skipping, which this app does
    # not use (search/query/scoring.py reads each paper's length). Without them, writing a posting no
    # longer looks up its paper's field length: about 10% of a build.
    length_stats = False

    def field_writer(self, storage, segment):
        return TermFieldWriter(self, storage, segment)

    def postings_writer(self, dbfile, byteids=False):
        return TermPostingsWriter(dbfile, self._blocklimit, byteids, self._compression, self._inlinelimit)


class TermFieldWriter(W3FieldWriter):
    def __init__(self, codec, storage, segment) -> None:
        super().__init__(codec, storage, segment)
        self._tindex.__class__ = TermsTable  # the same object and state (the header is written)

    def _create_file(self, ext):
        structured = super()._create_file(ext)
        structured.file = CountingFile(structured.file)
        return structured

    def add_field_terms(self, fieldname: str, fieldobj, terms: dict[bytes, list]) -> None:
        """Write one field's terms, each with its postings flat and in paper order: paper, weight,
        value, paper, weight, value, ... (writer.py groups them so)."""
        self.start_field(fieldname, fieldobj)
        field_key = pack_ushort(self._fieldid)
        inline_below = self._codec._inlinelimit * 3
        for btext in sorted(terms):
            postings = terms[btext]
            if len(postings) < inline_below:  # most terms: rare ones
                self._tindex.add(field_key + btext, _inlined_term_info(postings))
                continue
            self.start_term(btext)
            self._postwriter.add_term_postings(postings)
            self.finish_term()
        self.finish_field()


class TermPostingsWriter(W3PostingsWriter):
    def add_term_postings(self, postings: list) -> None:
        """Every posting of the current term, flat (paper, weight, value, ...): what add_posting
        does one by one, a block at a time."""
        step = self._blocklimit * 3
        for start in range(0, len(postings), step):
            if len(self._ids) >= self._blocklimit:
                self._write_block()
            block = postings[start : start + step]
            weights = block[1::3]
            self._ids.extend(block[0::3])
            self._weights.extend(weights)
            self._values.extend(filter(None, block[2::3]))
            self._maxweight: float = max(self._maxweight, *weights)

    def _mini_ids(self) -> tuple:
        """What Whoosh's _mini_ids gives (each id less the one before it, the first less 0), by
        C-level map instead of a generator per posting."""
        if self._byteids:
            return super()._mini_ids()
        ids = self._ids
        return tuple(map(sub, ids, chain((0,), ids)))

    def _mini_weights(self):
        """What Whoosh's _mini_weights gives (None when every weight is 1, the one weight when all
        are the same, else all of them), counted in C instead of a generator per posting."""
        weights = self._weights
        first = weights[0]
        if weights.count(first) == len(weights):
            return None if first == 1.0 else first
        return tuple(weights)


class TermsTable(OrderedHashWriter):
    """Whoosh's terms table (an on-disk hash of field+term -> term info, in term order), each entry
    written in one call instead of five."""

    lastkey: bytes

    def add(self, key: bytes, value: bytes) -> None:
        if key <= self.lastkey:
            raise ValueError(f"Keys must increase: {self.lastkey!r}..{key!r}")
        position = self.dbfile.tell()
        self.index.append(position)
        self.dbfile.write(_LENGTHS.pack(len(key), len(value)) + key + value)
        hashed = int.from_bytes(md5(key, usedforsecurity=False).digest()[-4:], "big")  # filetables.md5_hash
        self.buckets[hashed & 255].append((hashed, position))
        self.lastkey = key


_LENGTHS = struct.Struct("!ii")  # filetables' key and value lengths
_TERM_INFO = struct.Struct("!BfIBBfII")  # W3TermInfo's layout


def _inlined_term_info(postings: list) -> bytes:
    """W3TermInfo.to_bytes for a term whose postings (flat: paper, weight, value, ...) are kept
    inline, without the posting writer: flag, total weight, paper count, length bytes (no length
    statistics: 0), top weight, first and last paper, then the pickled (ids, weights, values),
    weights rounded to 32 bits as in a block."""
    ids = tuple(postings[0::3])
    raw_weights = postings[1::3]
    weights = tuple(array("f", raw_weights))
    values = tuple(filter(None, postings[2::3]))
    top = max(0, *raw_weights)
    return _TERM_INFO.pack(1, sum(weights), len(ids), 0, 0, top, ids[0], ids[-1]) + dumps((ids, weights, values), 2)


class CountingFile:
    """A file being written that knows its own position. The writers ask for it several times per
    term, and a buffered file answers each time with a system call (lseek): 10% of a build."""

    def __init__(self, file) -> None:
        self._file = file
        self._position = file.tell()

    def write(self, data) -> int:
        written = self._file.write(data)
        self._position += written
        return written

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = 0) -> int:
        self._position = self._file.seek(offset, whence)
        return self._position

    def __getattr__(self, name: str):
        return getattr(self._file, name)


def codec() -> W3Codec:
    return ReaderCodec(inlinelimit=INLINE_POSTINGS, compression=POSTINGS_COMPRESSION)
