"""The documentation in the repository: the generated pages of ``docs/`` match their
generator (``sphragis.workbench.pages``), and every ``§`` / docs reference in the README, the docs
and the code's docstrings, comments and model docs resolves inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sphragis.workbench import pages

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

#: Where references are looked for: the README, the docs, and every source file of the project,
#: the tests' docstrings and comments included (this file aside: its patterns name what they refuse).
CODE_DIRS = ("sphragis", "export", "ingest", "models", "sql", "tests")
CODE_SUFFIXES = {".py", ".sql", ".yml", ".j2", ".js", ".md", ".csv"}


def _texts() -> dict[str, str]:
    files = [REPO / "README.md", REPO / "Makefile", *sorted(DOCS.glob("*.md"))]
    for d in CODE_DIRS:
        files += [p for p in sorted((REPO / d).rglob("*")) if p.suffix in CODE_SUFFIXES and p.is_file()
                  and p != Path(__file__).resolve()]
    return {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8") for p in files}


def _spec_sections() -> set[str]:
    heads = re.findall(r"^#{2,3} §(\d+(?:\.\d+)?) ", (DOCS / "spec.md").read_text(encoding="utf-8"), re.M)
    return set(heads)


def test_generated_pages_match_the_generator():
    assert set(pages.GENERATED) <= {p.name for p in DOCS.glob("*.md")}
    assert pages.stale(DOCS) == [], "docs/ is stale: run `make docs` (python -m sphragis.workbench.pages)"


def test_a_stale_page_is_reported(tmp_path):
    generated = pages.generate()
    pages.write(tmp_path, generated)
    assert pages.stale(tmp_path, generated) == []
    (tmp_path / "rules.md").write_text(generated["rules.md"].replace("retained", "kept", 1), encoding="utf-8")
    assert pages.stale(tmp_path, generated) == ["rules.md"]
    assert pages.main([str(tmp_path), "--check"]) == 1
    assert pages.write(tmp_path, generated) == ["rules.md"] and pages.stale(tmp_path, generated) == []


def test_the_rules_page_holds_every_seed_with_its_readers():
    text = pages.generate()["rules.md"]
    for seed in sorted((REPO / "sql" / "seeds").glob("*.csv")):
        assert f"### `{seed.stem}`" in text
    assert "(no description" not in text  # every seed is described in models/_seeds.yml
    # a small seed's rows are on the page, with the model that reads it
    block = text.split("### `elision_marks`")[1].split("### ")[0]
    assert "| U+1FBF | GREEK PSILI |  |" in block and "`int_token_forms`" in block


def test_every_section_reference_resolves_in_the_spec():
    sections = _spec_sections()
    assert {"0", "5", "5.1", "7.1", "13"} <= sections
    bad = []
    for name, text in _texts().items():
        for m in re.finditer(r"§(\d+(?:\.\d+)?)", text):
            ref = m.group(1)
            if ref not in sections:
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{name}:{line}: §{ref}")
    assert bad == []


def test_no_reference_leaves_the_repository():
    bad = [f"{name}: {m.group(0)}" for name, text in _texts().items()
           for m in re.finditer(r"(?:\.\./)?shared/spec\S*|\bSPEC\.md\b|\.\./seeds/\S*", text)]
    assert bad == []


def test_every_docs_reference_resolves():
    bad = []
    for name, text in _texts().items():
        base = (REPO / name).parent
        for m in re.finditer(r"\bdocs/([A-Za-z0-9_-]+\.md)", text):
            if not (DOCS / m.group(1)).is_file():
                bad.append(f"{name}: docs/{m.group(1)}")
        if name.endswith(".md"):
            for m in re.finditer(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
                if not m.group(1).startswith("http") and not (base / m.group(1)).is_file():
                    bad.append(f"{name}: ({m.group(1)})")
    assert bad == []


@pytest.mark.parametrize("page", ["spec.html", "rules.html", "index.html"])
def test_the_site_publishes_the_docs(page):
    html = pages.html_pages(DOCS)
    title, body = html[page]
    assert "<table>" in body and ".md\"" not in body
    if page == "index.html":
        assert 'href="spec.html"' in body and title == "Sphragis warehouse documentation"


def test_the_readme_starts_with_its_users():
    # what it is, the two set-up commands, three things to try (the first a `sphragis sql` query)
    # and where everything else is, at the top; the rest lives in docs/
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    first_sql = next(i for i, line in enumerate(lines, 1) if line.startswith("sphragis sql "))
    heads = [line for line in lines if line.startswith("## ")]
    assert first_sql <= 100 and heads[:3] == ["## Set-up: two commands", "## Three things to try",
                                              "## Where everything else is"]
    top = "\n".join(lines[:60])
    assert all(k in top for k in ("make export", "make test", "from mart_variation", "load_dataset(", "docs/analysts.md"))
    # every hand-written and generated page of docs/ is reachable from the docs index
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    assert {p.name for p in DOCS.glob("*.md")} - {"README.md"} <= set(re.findall(r"\]\(([a-z_-]+\.md)\)", index))
