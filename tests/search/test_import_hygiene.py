import subprocess
import sys


def test_search_never_loads_textual_or_rich():
    code = (
        "import sys, search, search.engine, search.corpus, search.markup, search.query, search.index;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'));"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_tui_never_imports_whoosh_directly():
    from pathlib import Path

    tui = Path(__file__).resolve().parents[2] / "tui"
    for source in tui.rglob("*.py"):
        assert "import whoosh" not in source.read_text() and "from whoosh" not in source.read_text(), source
