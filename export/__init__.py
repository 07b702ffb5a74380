"""Exporters (SPEC §9): installed as ``sphragis.export`` (folder ``export/``).

Writes the benchmark configurations as Parquet with a dataset card, the metadata reports and
``LICENSES.md``; ``conllu_units.render_conllu`` renders one published unit as CoNLL-U.
"""
