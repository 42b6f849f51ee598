"""The layers hold: every engine module imports without Textual or Rich, and the interface reaches the
engine only through `search`'s public API (import-linter checks the same in CI, statically)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules(package: str) -> list[str]:
    names = []
    for source in sorted((ROOT / package).rglob("*.py")):
        parts = source.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_engine_module_loads_without_textual_or_rich():
    modules = _modules("search")
    assert len(modules) > 30 and "search.index.codec" in modules and "search.corpus.formats.bibtex" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == ""


def _imports(source: Path) -> list[str]:
    """Every module a file imports, including `from search import name` as search.name."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_the_interface_uses_only_the_engines_public_api_and_never_whoosh():
    sources = sorted((ROOT / "tui").rglob("*.py"))
    assert len(sources) > 15
    for source in sources:
        for module in _imports(source):
            assert module.split(".")[0] != "whoosh", f"{source.relative_to(ROOT)} imports {module}"
            assert module == "search" or not module.startswith("search."), (
                f"{source.relative_to(ROOT)} imports {module}: use `from search import ...` (search/__init__.py)"
            )


def test_every_public_name_loads_when_first_used_and_is_the_modules_own():
    """`search` loads its names when first used (a cold start forks its parsing process before the
    engine is imported): each name in __all__ is there, is the object its module defines, and
    `from search import *` still gives them all; importing `search` alone imports no engine."""
    code = (
        "import importlib, sys\n"
        "import search\n"
        "print('search.engine' in sys.modules, 'whoosh' in sys.modules)\n"
        "for name in search.__all__:\n"
        "    module, attribute = search._WHERE[name]\n"
        "    found = importlib.import_module(module)\n"
        "    assert getattr(search, name) is (getattr(found, attribute) if attribute else found), name\n"
        "namespace = {}\n"
        "exec('from search import *', namespace)\n"
        "assert set(search.__all__) <= set(namespace) and set(search.__all__) <= set(dir(search))\n"
        "print(sorted(search._WHERE) == sorted(search.__all__))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.split() == ["False", "False", "True"]
