"""The build's printed summary (sphragis.build_summary): what a user reads at the end of a build."""

import io

from rich.console import Console

from sphragis import build


def _printed(summary) -> str:
    out = io.StringIO()
    build.print_summary(summary, Console(file=out, width=200))
    return out.getvalue()


def test_one_status_for_every_model_is_said_once_not_on_every_row():
    # a first build: every model "built: new", said once (it was printed on ~100 rows)
    first = build.BuildSummary(
        models={"stg_agdt__tokens": None, "int_tokens": 1637147, "int_sentences": 88332, "tokens": 1637137},
        status={m: ("built", "new (no earlier build of it)") for m in ("int_tokens", "int_sentences", "tokens")})
    text = _printed(first)
    assert "  every model built, new (no earlier build of it)\n" in text
    assert text.count("new (no earlier build of it)") == 1
    assert "models: 3 built, 0 reused" in text
    assert "1,637,147" in text and "88,332" in text and "status" not in text
    # statuses that differ stay on their rows
    mixed = build.BuildSummary(models={"int_tokens": 1637147, "int_sentences": 88332},
                               status={"int_tokens": ("built", "SQL changed"), "int_sentences": ("reused", "unchanged")})
    text = _printed(mixed)
    assert "built: SQL changed" in text and "reused" in text and "status" in text
    assert "  built, SQL changed: int_tokens\n" in text and "every model built" not in text


def test_an_up_to_date_build_says_what_the_raw_layer_holds_in_one_line_not_a_table():
    ingest = {"agdt": {"files": 79, "counted": 33555, "sentences": 33555, "tokens": 557920, "rejects": 0},
              "harrington": {"files": 10, "counted": 1046, "sentences": 1046, "tokens": 18134, "rejects": 0}}
    done = build.BuildSummary(ingest=ingest, ingest_reused=True, up_to_date=True, tests=(0, 1036),
                              models={"int_tokens": 576054}, status={"int_tokens": ("reused", "unchanged")})
    text = _printed(done)
    assert "raw layer (reused): 2 projects, 89 files, 34,601 sentences, 576,054 tokens, 0 rejects" in text
    assert "rows per project" not in text and "┏" not in text
    assert "up to date: nothing to build, load or test (sources unchanged, 1 models reused" in text
    # a build that built something still shows the table per project
    text = _printed(build.BuildSummary(ingest=ingest, ingest_reused=True, models={"int_tokens": 576054},
                                       status={"int_tokens": ("built", "SQL changed")}))
    assert "raw layer (reused, not re-ingested): rows per project" in text and "harrington" in text
