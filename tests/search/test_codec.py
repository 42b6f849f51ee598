"""The codec's term-at-a-time writer (search/index/codec.py) must write exactly the index Whoosh writes."""

from __future__ import annotations

import random

from whoosh import index as whoosh_index
from whoosh.codec.whoosh3 import W3FieldWriter

from search.corpus.loader import load_corpus
from search.index.codec import CountingFile, ReaderCodec, codec
from search.index.schema import build_schema


class WhooshWriterCodec(ReaderCodec):
    """The same format, written by Whoosh's own posting-at-a-time field writer."""

    def field_writer(self, storage, segment):
        return W3FieldWriter(self, storage, segment)


def documents() -> list[dict]:
    """The bundled abstracts, plus made-up ones whose words are in every paper (several posting
    blocks), in a few dozen (one block) or in a handful (inlined)."""
    docs = [
        {"id": paper.id, "abstract": paper.abstract, "title": paper.title or "", "authors": " ; ".join(paper.authors)}
        for paper in load_corpus().papers
    ]
    pick = random.Random(7)
    common, middling, rare = ["graph"], [f"word{n}" for n in range(40)], [f"rare{n}" for n in range(400)]
    for number in range(400):
        words = common * pick.randint(1, 3) + pick.sample(middling, 5) + pick.sample(rare, 3)
        pick.shuffle(words)
        docs.append({"id": f"made-{number}", "abstract": " ".join(words), "name": "Name" if number % 7 == 0 else ""})
    return docs


def index_files(folder, writer_codec) -> dict[str, bytes]:
    ix = whoosh_index.create_in(str(folder), build_schema())
    writer = ix.writer(codec=writer_codec, compound=False)
    for doc in documents():
        writer.add_document(**doc)
    writer.commit()
    return {path.suffix: path.read_bytes() for path in folder.iterdir() if path.suffix in (".trm", ".pst")}


def test_term_at_a_time_writes_the_same_bytes_as_whoosh(tmp_path):
    (tmp_path / "ours").mkdir()
    (tmp_path / "whoosh").mkdir()
    ours = index_files(tmp_path / "ours", codec())
    whoosh = index_files(tmp_path / "whoosh", WhooshWriterCodec(inlinelimit=codec()._inlinelimit))
    assert set(ours) == {".trm", ".pst"} and len(ours[".pst"]) > 1000
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
