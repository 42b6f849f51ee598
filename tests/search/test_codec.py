"""The codec's term-at-a-time writer (search/index/codec.py) must write exactly the index Whoosh writes."""

from __future__ import annotations

import random

from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3FieldWriter
from whoosh.writing import SegmentWriter

from search.corpus.loader import load_corpus
from search.index.codec import CountingFile, ReaderCodec, codec
from search.index.schema import build_schema
from search.index.writer import GroupingWriter


class WhooshWriterCodec(ReaderCodec):
    """The same format, written by Whoosh's own posting-at-a-time field writer."""

    def field_writer(self, storage, segment):
        return W3FieldWriter(self, storage, segment)


def documents() -> list[dict]:
    """The bundled abstracts, plus made-up ones whose words are in every paper (several posting
    blocks), in a few dozen (one block) or in a handful (inlined). Keywords are always empty."""
    docs = [
        {
            "id": paper.id,
            "abstract": paper.abstract,
            "title": paper.title or "",
            "authors": " ; ".join(paper.authors),
            "keywords": "",
        }
        for paper in load_corpus().papers
    ]
    pick = random.Random(7)
    common, middling, rare = ["graph"], [f"word{n}" for n in range(40)], [f"rare{n}" for n in range(400)]
    for number in range(400):
        words = common * pick.randint(1, 3) + pick.sample(middling, 5) + pick.sample(rare, 3)
        pick.shuffle(words)
        docs.append({"id": f"made-{number}", "abstract": " ".join(words), "name": "Name" if number % 7 == 0 else ""})
    return docs


def index_files(folder, writer) -> dict[str, bytes]:
    """Each file of the segment (terms, postings, lengths, stored ids), by its name after the
    segment's (which is random)."""
    folder.mkdir()
    ix = whoosh_index.create_in(str(folder), build_schema())
    writing = writer(ix)
    for doc in documents():
        writing.add_document(**doc)
    writing.commit()
    return {
        path.name.split(".", 1)[1]: path.read_bytes()
        for path in folder.iterdir()
        if "." in path.name and path.suffix != ".toc"
    }


def whooshs_writer(ix):
    ours = codec()
    return SegmentWriter(
        ix, codec=WhooshWriterCodec(inlinelimit=ours._inlinelimit, compression=ours._compression), compound=False
    )


def test_whooshs_writer_with_the_codec_writes_the_same_bytes_as_whoosh(tmp_path):
    """The terms table and counted positions, under Whoosh's posting-at-a-time loop."""
    ours = index_files(tmp_path / "ours", lambda ix: SegmentWriter(ix, codec=codec(), compound=False))
    whoosh = index_files(tmp_path / "whoosh", whooshs_writer)
    assert {"trm", "pst", "_abstract_len.col", "_stored.col"} <= set(ours) and len(ours["pst"]) > 1000
    assert ours == whoosh


def test_postings_grouped_by_term_write_the_same_bytes_as_whoosh(tmp_path):
    ours = index_files(tmp_path / "ours", lambda ix: GroupingWriter(ix, codec=codec(), compound=False))
    whoosh = index_files(tmp_path / "whoosh", whooshs_writer)
    assert {"trm", "pst", "_abstract_len.col", "_stored.col"} <= set(ours) and len(ours["pst"]) > 1000
    assert ours == whoosh


def test_a_counting_file_knows_its_position(tmp_path):
    with open(tmp_path / "file", "wb") as raw:
        counted = CountingFile(raw)
        counted.write(b"abc")
        counted.write(memoryview(b"defgh"))
        assert counted.tell() == raw.tell() == 8
        counted.seek(2)
        counted.write(b"X")
        assert counted.tell() == raw.tell() == 3
        counted.seek(0, 2)
        assert counted.tell() == raw.tell() == 8
    assert (tmp_path / "file").read_bytes() == b"abXdefgh"


def test_blocks_are_minified_as_whoosh_minifies_them():
    """The C-level _mini_ids and _mini_weights give the tuples Whoosh's generators give (so the
    pickled blocks are the same bytes)."""
    from array import array

    from whoosh.codec.whoosh3 import W3PostingsWriter

    from search.index.codec import TermPostingsWriter

    pick = random.Random(3)
    blocks = [
        [1.0] * 5,
        [2.0] * 3,
        [1.0, 2.0, 1.0],
        [3.0],
        [1.0],
        [pick.choice([1.0, 2.0, 0.5]) for _ in range(128)],
    ]
    for weights in blocks:
        writer = TermPostingsWriter.__new__(TermPostingsWriter)
        writer._byteids = False
        writer._ids = array("I", sorted(pick.sample(range(10_000), len(weights))))
        writer._weights = array("f", weights)
        assert writer._mini_ids() == W3PostingsWriter._mini_ids(writer)
        assert writer._mini_weights() == W3PostingsWriter._mini_weights(writer)
        assert type(writer._mini_weights()) is type(W3PostingsWriter._mini_weights(writer))


def postings_of(folder) -> dict[tuple[str, bytes], tuple[list, list, list]]:
    """Every term's postings (papers, weights, values) as a reader gives them."""
    found = {}
    with whoosh_index.open_dir(str(folder)).reader() as reader:
        for field, btext in reader.all_terms():
            matcher = reader.postings(field, btext)
            ids, weights, values = [], [], []
            while matcher.is_active():
                ids.append(matcher.id())
                weights.append(matcher.weight())
                values.append(matcher.value())
                matcher.next()
            found[field, btext] = (ids, weights, values)
    return found


def test_an_index_written_at_another_compression_level_reads_the_same_postings(tmp_path):
    """Indexes written before (blocks at zlib's level 3) still open and give the same postings as
    those written now."""
    before = ReaderCodec(inlinelimit=codec()._inlinelimit, compression=3)
    written_before = index_files(tmp_path / "before", lambda ix: GroupingWriter(ix, codec=before, compound=False))
    written_now = index_files(tmp_path / "now", lambda ix: GroupingWriter(ix, codec=codec(), compound=False))
    assert written_before["pst"] != written_now["pst"]  # blocks written cheaper than before...
    assert postings_of(tmp_path / "before") == postings_of(tmp_path / "now")
    assert len(postings_of(tmp_path / "now")) > 1000
