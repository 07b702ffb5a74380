{#- Split and chunk helpers (SPEC §8, seed 000 "Splits", "Configurations"). -#}

{%- macro stable_hash(key, salt='') -%}
{#- The stable shuffle key of SPEC §8: lowercase hex sha256 of the UTF-8 string
    seed || salt || key, with seed = var('split_seed') (776). Ordering by this VARCHAR ascending is
    ordering by the digest bytes, so it is independent of DuckDB and of any library's RNG.
    Split hash: stable_hash('row_id') = sha256('776' || row_id);
    bottleneck hash: stable_hash('row_id', 'bottleneck:') = sha256('776bottleneck:' || row_id). -#}
sha256('{{ var("split_seed") }}' || '{{ salt }}' || {{ key }})
{%- endmacro %}

{%- macro split_block() -%}
{#- Rows per author and split are cut to a multiple of this and must reach it in every split:
    the largest chunk size, 50 (seed 000 "Configurations"); var('min_author_rows'). -#}
{{ var('min_author_rows') }}
{%- endmacro %}

{%- macro group_holdout(n) -%}
{#- Rows of an (author, work) group of n rows that go to validation, and as many to test, on the
    main track (seed 000 "Splits"): 10% rounded half up when n >= 10, one when 3 <= n <= 9, none
    below 3 (those groups stay in training). -#}
case
    when {{ n }} >= 10 then ({{ n }} + 5) // 10
    when {{ n }} >= 3 then 1
    else 0
end
{%- endmacro %}

{%- macro bottlenecked(train, validation, test, split_rows) -%}
{#- Published rows of one author split after the 50-row eligibility and remainder bottleneck
    (seed 000 "Configurations"): split_rows cut to a multiple of split_block() when the author's
    train, validation and test each reach it, else 0. -#}
case
    when {{ train }} >= {{ split_block() }} and {{ validation }} >= {{ split_block() }}
        and {{ test }} >= {{ split_block() }}
        then ({{ split_rows }} // {{ split_block() }}) * {{ split_block() }}
    else 0
end
{%- endmacro %}

{%- macro citation_key(passage) -%}
{#- A passage citation as an INTEGER[] for textual ordering: the part before the first '-' (start
    of a range), every run of digits one element, and a single letter directly after digits one
    more element (a=1, b=2, …, case-insensitive), so '1.10.1' → [1, 10, 1], '15.669-15.670' →
    [15, 669], '9:19' → [9, 19], '27,12' → [27, 12], 'LUKE_5.14' → [5, 14], '17a' → [17, 1] (after
    [17]). NULL when the passage is NULL or has no digit (ordered after cited rows). -#}
case
    when regexp_matches(coalesce({{ passage }}, ''), '[0-9]')
        then flatten(
            list_transform(
                regexp_extract_all(split_part({{ passage }}, '-', 1), '[0-9]+[A-Za-z]?'),
                lambda p: case
                    when regexp_matches(p, '[A-Za-z]$')
                        then [try_cast(p[:-2] as bigint), ascii(lower(p[-1:])) - 96]
                    else [try_cast(p as bigint)]
                end
            )
        )
end
{%- endmacro %}

{%- macro author_slug(author) -%}
{#- 'Homeric-Iliad' → 'homeric-iliad', 'Diodorus Siculus' → 'diodorus-siculus' (chunk ids). -#}
trim(regexp_replace(lower(strip_accents({{ author }})), '[^a-z0-9]+', '-', 'g'), '-')
{%- endmacro %}

{%- macro published_id(key, kind) -%}
{#- The published `id` of a benchmark row (SPEC §11: row ids reveal nothing): the first 16 hex
    digits of sha256('sphragis:' || kind || ':' || key) with a fixed salt, so stable across builds
    and independent of the file, project, author and split a row comes from. A sentence
    (kind 'sentence') is keyed by its dedup_key (one eligible row per key, SPEC §7), a chunk
    (kind 'chunk') by its constituents' ids in order; where the row came from stays in
    `source_id`, `source_records` and `constituent_provenance`. -#}
left(sha256('sphragis:{{ kind }}:' || {{ key }}), 16)
{%- endmacro %}
