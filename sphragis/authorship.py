"""Authorship curation: the checked-in works registry and its rules (SPEC §6, seed 000).

The registry (``sql/seeds/works_registry.csv``) has one row per source document, keyed by
``(project, document_key)``, with the curated author label, work title, TLG-style ``work_id``,
genre and a decision: ``retained`` or one machine-readable exclusion reason from
:data:`REASON_CODES`. Seed 000 ("Conservative authorship policy") is the policy: anonymous and
unknown authors, ``Pseudo-*`` and traditional attributions, fragment-labelled works, corporate or
mediated authorship and substantially disputed works are excluded; the only retained pseudonymous
label is listed in :data:`RETAINED_PSEUDONYMOUS_AUTHORS`.

Document keys (how the warehouse names a source document; :func:`document_key` implements them):

* ``agdt``, ``gorman``, ``harrington``: the file's basename.
* ``pedalion``: ``<basename>#<sentence @document_id>`` (empty id gives ``<basename>#``); mixed
  example files therefore get one row per author/work code. Split on the *first* ``#`` only:
  ids such as ``0096-00#`` contain one.
* ``ud_perseus``: the last preceding ``# newdoc id`` (an AGDT 2.1 file name).
* ``ud_proiel``: ``# source`` minus a trailing ``, chapter N``, then ``, Book N``, then `` N``.
* ``ud_ptnk``: ``# sent_id`` up to the first ``-<digits>:``.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

from sphragis.config import PROJECT_PRIORITY, SEEDS_DIR

#: The registry file (SPEC §6).
REGISTRY_FILE: Path = SEEDS_DIR / "works_registry.csv"

#: Registry columns, in file order.
COLUMNS: tuple[str, ...] = (
    "project", "document_key", "author", "work", "work_id", "genre", "decision", "justification",
)

#: Machine-readable exclusion reasons (SPEC §6, seed 000 "Conservative authorship policy").
#: ``anonymous`` unknown author (Septuagint, Homeric Hymns, documentary papyri, Life of Aesop);
#: ``pseudepigraphic`` a ``Pseudo-*`` work (Shield of Heracles, Old Oligarch, Onos, Cleitophon);
#: ``traditional_attribution`` a name attached by tradition only (Aesop's fables, the Gospels);
#: ``fragments`` fragment-labelled works (Sappho, Mimnermus, Semonides);
#: ``mediated`` another hand wrote the text down or translated it (Arrian's Epictetus);
#: ``corporate`` collective authorship (a conciliar creed); ``disputed`` attribution
#: substantially disputed (Apollodoran speeches, Prometheus Bound, the Tetralogies);
#: ``not_greek`` not Ancient Greek (Latin Harrington files); ``mixed_unattributable`` a
#: mixed-source document without a reliable author/work code (Pedalion's grammar examples).
REASON_CODES: tuple[str, ...] = (
    "anonymous",
    "pseudepigraphic",
    "traditional_attribution",
    "fragments",
    "mediated",
    "corporate",
    "disputed",
    "not_greek",
    "mixed_unattributable",
)

#: Every valid ``decision`` value.
DECISIONS: tuple[str, ...] = ("retained", *REASON_CODES)

#: Every valid ``genre`` value (drama, epic and lyric are ``verse``; seed 000 "Column structure").
GENRES: tuple[str, ...] = ("prose", "verse")

#: Project keys the registry may use (SPEC §7 priority order).
PROJECTS: tuple[str, ...] = tuple(PROJECT_PRIORITY)

#: ``Pseudo-*`` author labels that are retained despite the rule excluding pseudonymous works.
#:
#: Seed 000: a ``Pseudo-`` label normally names nobody (the work could be by the author it is
#: transmitted under, by another benchmark author, or by several hands). The Cynegetica is the
#: exception: it is the work of one Syrian poet (Apamea), demonstrably neither the Cilician poet of
#: the Halieutica nor anyone else published here, so its attribution is secure in everything but
#: the poet's name and ``Pseudo-Oppian`` is a usable label. The pinned sources hold no Oppian; the
#: rule is enforced by :func:`validate_registry` for when they do.
RETAINED_PSEUDONYMOUS_AUTHORS: frozenset[str] = frozenset({"Pseudo-Oppian"})

#: Seed 000: "Oppian is the Halieutica alone and the Cynegetica is Pseudo-Oppian". Maps a
#: normalized work title (see :func:`oppian_author`) to the only acceptable author label.
OPPIAN_WORKS: dict[str, str] = {
    "halieutica": "Oppian",
    "halieutika": "Oppian",
    "on fishing": "Oppian",
    "cynegetica": "Pseudo-Oppian",
    "cynegetika": "Pseudo-Oppian",
    "on hunting": "Pseudo-Oppian",
}

#: TLG work ids of the two Oppianic poems (TLG 0023 Oppianus Anazarbensis, 0024 Oppianus Apamensis).
OPPIAN_WORK_IDS: dict[str, str] = {
    "tlg0023.tlg001": "Oppian",  # Halieutica
    "tlg0024.tlg001": "Pseudo-Oppian",  # Cynegetica
}

_WORK_ID = re.compile(r"^tlg\d{4}\.tlg\d{3}$")


class RegistryError(ValueError):
    """The registry file cannot be read as the table described in SPEC §6 (message names file and line)."""


def oppian_author(work: str, work_id: str = "") -> str | None:
    """The author label seed 000 requires for an Oppianic poem, or ``None`` if ``work`` is not one.

    Args:
        work: registry ``work`` title, e.g. ``"Cynegetica"`` or ``"Cynegetica (On Hunting)"``.
        work_id: registry ``work_id`` (``tlg0024.tlg001`` identifies the Cynegetica by itself).

    Returns:
        ``"Oppian"`` for the Halieutica, ``"Pseudo-Oppian"`` for the Cynegetica, else ``None``.
    """
    if work_id in OPPIAN_WORK_IDS:
        return OPPIAN_WORK_IDS[work_id]
    title = re.sub(r"\s+", " ", work.casefold()).strip()
    for name, author in OPPIAN_WORKS.items():
        if title == name or title.startswith(name + " ") or title.startswith(name + "("):
            return author
    return None


def load_registry(path: str | Path | None = None) -> list[dict[str, str]]:
    """Read the works registry (SPEC §6).

    Args:
        path: CSV file; default :data:`REGISTRY_FILE` (``sphragis.config.SEEDS_DIR``).

    Returns:
        One ``dict`` per data row with exactly the keys in :data:`COLUMNS` (string values, as
        written; empty ``work_id`` is ``""``), in file order.

    Raises:
        FileNotFoundError: the file does not exist.
        RegistryError: the header is not :data:`COLUMNS`, or a row has the wrong number of
            fields (the message names the file and line).
    """
    p = Path(path) if path is not None else REGISTRY_FILE
    rows: list[dict[str, str]] = []
    with p.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise RegistryError(f"{p}:1: header must be {','.join(COLUMNS)}; found {header!r}")
        for fields in reader:
            if not fields:
                continue
            if len(fields) != len(COLUMNS):
                raise RegistryError(
                    f"{p}:{reader.line_num}: expected {len(COLUMNS)} fields, found {len(fields)}"
                )
            rows.append(dict(zip(COLUMNS, fields)))
    return rows


def validate_registry(rows: list[dict[str, str]]) -> list[str]:
    """Check registry rows against SPEC §6 and seed 000; return the problems found.

    Checks: unknown project; empty document key; unknown decision code; genre not ``prose`` or
    ``verse``; duplicate ``(project, document_key)``; malformed ``work_id`` (must be empty or
    ``tlgNNNN.tlgNNN``); a retained row with empty author or work; a retained ``Pseudo-*`` author
    not in :data:`RETAINED_PSEUDONYMOUS_AUTHORS`; an Oppianic poem under the wrong label
    (Halieutica must be ``Oppian``, Cynegetica ``Pseudo-Oppian``); an exclusion without a
    justification.

    Args:
        rows: rows as returned by :func:`load_registry`.

    Returns:
        Human-readable problems, each naming the row's ``project`` and ``document_key``; an empty
        list means the registry is valid.
    """
    problems: list[str] = []
    counts = Counter((r.get("project", ""), r.get("document_key", "")) for r in rows)
    for (project, key), n in sorted(counts.items()):
        if n > 1:
            problems.append(f"{project}|{key}: duplicate key ({n} rows)")
    for r in rows:
        project, key = r.get("project", ""), r.get("document_key", "")
        where = f"{project}|{key}"
        decision, author, work = r.get("decision", ""), r.get("author", ""), r.get("work", "")
        if project not in PROJECTS:
            problems.append(f"{where}: unknown project {project!r}")
        if not key:
            problems.append(f"{where}: empty document_key")
        if decision not in DECISIONS:
            problems.append(f"{where}: unknown decision code {decision!r}")
        if r.get("genre", "") not in GENRES:
            problems.append(f"{where}: genre {r.get('genre', '')!r} is not prose or verse")
        work_id = r.get("work_id", "")
        if work_id and not _WORK_ID.match(work_id):
            problems.append(f"{where}: work_id {work_id!r} is not TLG-style tlgNNNN.tlgNNN")
        if decision != "retained" and decision in DECISIONS and not r.get("justification", "").strip():
            problems.append(f"{where}: exclusion {decision!r} without justification")
        if decision == "retained":
            if not author.strip() or not work.strip():
                problems.append(f"{where}: retained row with empty author or work")
            if author.startswith("Pseudo-") and author not in RETAINED_PSEUDONYMOUS_AUTHORS:
                problems.append(
                    f"{where}: retained pseudonymous author {author!r} is not in RETAINED_PSEUDONYMOUS_AUTHORS"
                )
        required = oppian_author(work, work_id)
        if required is not None and author != required:
            problems.append(f"{where}: {work!r} must be labelled {required!r} (seed 000), not {author!r}")
    return problems


def registry_index(rows: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """Index rows by ``(project, document_key)`` (assumes :func:`validate_registry` found no duplicates)."""
    return {(r["project"], r["document_key"]): r for r in rows}


# --------------------------------------------------------------------------- document keys
_PTNK_DOC = re.compile(r"^(.*?)-\d+:")


def proiel_document_key(source: str) -> str:
    """UD PROIEL document key from a ``# source`` comment value.

    Strips a trailing ``, chapter N``, then ``, Book N``, then `` N`` (the NT chapter number):
    ``"Histories, Book 1, chapter 10"`` gives ``"Histories"``; ``"The Greek New Testament, Acts 5"``
    gives ``"The Greek New Testament, Acts"``.
    """
    s = re.sub(r", chapter \d+$", "", source.strip())
    s = re.sub(r", Book \d+$", "", s)
    return re.sub(r" \d+$", "", s)


def ptnk_document_key(sent_id: str) -> str:
    """UD PTNK document key: ``# sent_id`` up to the first ``-<digits>:``.

    ``"Septuagint-Genesis-31:1-grc"`` gives ``"Septuagint-Genesis"``; an id without that pattern
    is returned unchanged.
    """
    m = _PTNK_DOC.match(sent_id.strip())
    return m.group(1) if m else sent_id.strip()


def pedalion_document_key(basename: str, document_id: str | None) -> str:
    """Pedalion document key ``<basename>#<document_id>`` (missing id gives ``<basename>#``)."""
    return f"{basename}#{document_id or ''}"


def document_key(
    project: str,
    *,
    basename: str = "",
    document_id: str | None = None,
    newdoc_id: str | None = None,
    source: str | None = None,
    sent_id: str | None = None,
) -> str:
    """The registry key of one sentence, by project (see the module docstring).

    Args:
        project: project key (:data:`PROJECTS`).
        basename: source file name (XML projects).
        document_id: the sentence's ``document_id`` attribute (Pedalion).
        newdoc_id: last preceding ``# newdoc id`` (UD Perseus).
        source: ``# source`` comment (UD PROIEL).
        sent_id: ``# sent_id`` comment (UD PTNK).

    Raises:
        ValueError: unknown project, or the field that project needs is missing.
    """
    if project in ("agdt", "gorman", "harrington"):
        if not basename:
            raise ValueError(f"{project}: basename required")
        return basename
    if project == "pedalion":
        if not basename:
            raise ValueError("pedalion: basename required")
        return pedalion_document_key(basename, document_id)
    if project == "ud_perseus":
        if not newdoc_id:
            raise ValueError("ud_perseus: sentence precedes any '# newdoc id' comment")
        return newdoc_id
    if project == "ud_proiel":
        if not source:
            raise ValueError("ud_proiel: '# source' comment required")
        return proiel_document_key(source)
    if project == "ud_ptnk":
        if not sent_id:
            raise ValueError("ud_ptnk: '# sent_id' comment required")
        return ptnk_document_key(sent_id)
    raise ValueError(f"unknown project {project!r}")
