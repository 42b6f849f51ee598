"""Whoosh's segment writer, with each paper's postings grouped by term as they are added.

Whoosh's SegmentWriter puts every posting in a pool as a (field, term, paper, weight, value) tuple,
with a Python call each to size it, and sorts the pool when it commits: about a million tuples for
the 10,750 real papers. Papers are added in order, so grouping each term's postings as they come
keeps them in paper order, and only the distinct terms need sorting at the end. The postings of a
term are kept flat (paper, weight, value, paper, ...): a third of the memory of tuples.

The files are the ones Whoosh's own writer writes (tests/search/test_codec.py)."""

from __future__ import annotations

from whoosh.writing import SegmentWriter

from search.index.analysis import FastText
from search.index.codec import TermFieldWriter


class GroupingWriter(SegmentWriter):
    """A SegmentWriter for a new index that groups postings by field and term (see the module)."""

    def __init__(self, ix, **kwargs) -> None:
        super().__init__(ix, **kwargs)
        if self.segments or not isinstance(self.fieldwriter, TermFieldWriter):
            self.cancel()  # releases the index's lock
            raise ValueError("GroupingWriter writes a new index with the app's codec")
        self._terms: dict[str, dict[bytes, list]] = {}
        """field -> term -> its postings, flat: paper, weight, value, paper, weight, value, ..."""

    def add_document(self, **fields) -> None:
        """What SegmentWriter.add_document does for a schema without boosts, spelling fields or
        term vectors (a field that has them raises), its postings grouped instead of pooled."""
        self._check_state()
        schema = self.schema
        names = sorted(fields)
        self._check_fields(schema, names)
        perdoc = self.perdocwriter
        docnum = self.docnum
        perdoc.start_doc(docnum)
        try:
            for name in names:
                value = fields[name]
                if value is None:
                    continue
                field = schema[name]
                if field.separate_spelling() or field.vector:
                    raise ValueError(f"GroupingWriter cannot write field {name!r}")
                length = 0
                if type(field) is FastText:
                    length = field.add_postings(value, docnum, self._terms.setdefault(name, {}))
                elif field.indexed:
                    terms = self._terms.setdefault(name, {})
                    for btext, frequency, weight, vbytes in field.index(value):
                        length += frequency
                        postings = terms.get(btext)
                        if postings is None:
                            terms[btext] = [docnum, weight, vbytes]
                        else:
                            postings += (docnum, weight, vbytes)
                    if not field.scorable:
                        length = 0
                perdoc.add_field(name, field, value if field.stored else None, length)
                if field.column_type:
                    perdoc.add_column_value(name, field.column_type, field.to_column_value(value))
        except BaseException:
            perdoc.cancel_doc()
            raise
        perdoc.finish_doc()
        self._added = True
        self.docnum += 1

    def _flush_segment(self) -> None:
        self.perdocwriter.close()
        fieldwriter = self.fieldwriter
        assert isinstance(fieldwriter, TermFieldWriter)  # checked when created
        for name in sorted(self._terms):
            if self._terms[name]:  # a field always empty has no entry in the terms file either
                fieldwriter.add_field_terms(name, self.schema[name], self._terms[name])
        self._terms = {}
        fieldwriter.close()
