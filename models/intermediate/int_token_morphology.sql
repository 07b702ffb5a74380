-- One morphological analysis per word token (SPEC §3). Grain: one row per word token of
-- int_tokens (is_syntactic_word), key (sentence_uid, token_pos).
--
-- 1. Normalized nine-position AGDT tag: from `postag` (agdt, gorman, pedalion, harrington) or the
--    XPOS (ud_perseus), repaired by the named rules of seed tag_rules; derived from UPOS+FEATS for
--    ud_proiel and ud_ptnk (seeds ud_upos_to_tag, ud_feats_to_tag, ud_tense_aspect_to_tag).
-- 2. Published UPOS from the tag's first position (seed upos_from_tag) and published FEATS from
--    positions 2-9 (seed agdt_tag_positions), restricted to seed feats_published_types; Gender
--    from the source FEATS where that is finer than the tag.
-- 3. Lemma: NFC, digits stripped, the SPEC §5.1 lemma rules (see lemma_steps), lowercased with
--    lower_grc (sphragis.udfs), grave → acute.
-- Every rule works on the distinct source values (tags, UPOS+FEATS pairs, lemmas) and is joined
-- back to the tokens.
{#- a form made only of punctuation, symbols and detached elision marks (U+0313, U+02BC) -#}
{%- set punct_form = "'[\\p{P}\\p{S}\\x{313}\\x{2BC}]+'" %}
{#- projects whose tag is derived from UPOS+FEATS, and the UD projects (the project registry) -#}
{%- set from_ud = "('" ~ (var('projects') | selectattr('tag_source', 'equalto', 'upos_feats') | map(attribute='project') | join("', '")) ~ "')" %}
{%- set ud_projects = "('" ~ (var('projects') | selectattr('syntax_scheme', 'equalto', 'UD') | map(attribute='project') | join("', '")) ~ "')" %}
with recursive

tokens as (
    select
        sentence_uid,
        token_pos,
        project,
        form,
        lemma,
        postag,
        upos,
        feats,
        is_artificial
    from {{ ref('int_tokens') }}
    where is_syntactic_word
),

tag_positions as (
    select
        position,
        code,
        feature,
        value
    from {{ ref('agdt_tag_positions') }}
),

upos_from_tag as (select * from {{ ref('upos_from_tag') }}),

ud_upos_to_tag as (select * from {{ ref('ud_upos_to_tag') }}),

ud_feats_to_tag as (
    select
        feature,
        value,
        position,
        code
    from {{ ref('ud_feats_to_tag') }}
),

ud_tense_aspect_to_tag as (select * from {{ ref('ud_tense_aspect_to_tag') }}),

ud_feats_not_in_tag as (select * from {{ ref('ud_feats_not_in_tag') }}),

published_types as (select * from {{ ref('feats_published_types') }}),

-- every code allowed at each position: position 1 from upos_from_tag, 2-9 from
-- agdt_tag_positions, plus '-' (empty) everywhere
valid_codes as (
    select
        1 as position,
        code
    from upos_from_tag
    union
    select
        position,
        code
    from tag_positions
    union
    select
        unnest(range(2, 10)) as position,
        '-' as code
),

tag_slots as (select unnest(range(1, 10)) as position),

-- tag-bearing tokens: the AGDT-lineage postag or the UD Perseus XPOS ----------------------------
source_tags as (
    select distinct postag
    from tokens
    where project not in {{ from_ud }} and postag is not null
),

cleaned as (
    select
        postag,
        trim(postag) as trimmed,
        replace(lower(trim(postag)), '_', '-') as cleaned,
        trim(postag) <> postag as was_trimmed,
        lower(trim(postag)) <> trim(postag) as was_lowercased,
        contains(trim(postag), '_') as had_underscore,
        trim(postag) = '' or lower(trim(postag)) = 'undefined'
        or regexp_full_match(trim(postag), '[-_"]*') as is_missing
    from source_tags
),

-- candidate repairs of wrong-length tags: insert '-' after the POS position (too short) or
-- delete a '-' after it (too long), one character per step, until nine positions remain
resized (postag, candidate) as (
    select
        postag,
        cleaned as candidate
    from cleaned
    where not is_missing and length(cleaned) <> 9
    union
    select
        r.postag,
        case
            when length(r.candidate) < 9 then substr(r.candidate, 1, s.i) || '-' || substr(r.candidate, s.i + 1)
            else substr(r.candidate, 1, s.i - 1) || substr(r.candidate, s.i + 1)
        end as next_candidate
    from resized as r
    cross join unnest(range(1, length(r.candidate) + 1)) as s (i)
    where
        length(r.candidate) < 9
        or (length(r.candidate) > 9 and s.i >= 2 and substr(r.candidate, s.i, 1) = '-')
),

candidates as (
    select
        postag,
        cleaned as candidate
    from cleaned
    where not is_missing and length(cleaned) = 9
    union
    select
        postag,
        candidate
    from resized
    where length(candidate) = 9
),

well_formed as (
    select
        c.postag,
        c.candidate
    from candidates as c
    cross join tag_slots as p
    inner join valid_codes as v
        on
            p.position = v.position
            and substr(c.candidate, p.position, 1) = v.code
    group by c.postag, c.candidate
    having count(*) = 9
),

readings as (
    -- a reading is plausible unless it gives a finite verb (mood i s o m) a gender, case or degree,
    -- or an infinitive a person or number (SPEC §3: those features belong to other verb forms)
    select
        postag,
        candidate,
        coalesce(
            substr(candidate, 1, 1) <> 'v'
            or (substr(candidate, 5, 1) not in ('i', 's', 'o', 'm', 'n'))
            or (substr(candidate, 5, 1) = 'n' and substr(candidate, 2, 2) = '--')
            or (substr(candidate, 5, 1) <> 'n' and substr(candidate, 7, 3) = '---'),
            false
        ) as is_plausible
    from well_formed
),

resolved as (
    -- one well-formed reading, or else one plausible reading among several (a six-position verb
    -- tag `v2pasm`: `v2pasm---`, not `v2pas-m--`)
    select
        postag,
        case
            when count(*) = 1 then any_value(candidate)
            when count(*) filter (where is_plausible) = 1 then any_value(candidate) filter (where is_plausible)
        end as candidate,
        count(*) > 1 as by_plausibility
    from readings
    group by postag
),

native_tags as (
    select
        c.postag,
        case when not c.is_missing then r.candidate end as tag,
        case
            when c.is_missing then 'missing'
            when r.candidate is null then 'unnormalizable'
            else coalesce(nullif(concat_ws(
                '+',
                case when c.was_trimmed then 'trimmed' end,
                case when c.was_lowercased then 'lowercased' end,
                case when c.had_underscore then 'underscore_as_dash' end,
                case when length(c.cleaned) < 9 then 'padded' end,
                case when length(c.cleaned) > 9 then 'truncated' end,
                case when r.by_plausibility then 'plausible_reading' end
            ), ''), 'as_is')
        end as tag_rule
    from cleaned as c
    left join resolved as r on c.postag = r.postag
),

-- UD PROIEL / UD PTNK: the tag is derived from UPOS and FEATS -----------------------------------
ud_analyses as (
    select distinct
        upos,
        feats
    from tokens
    where project in {{ from_ud }} and upos is not null
),

ud_feature_values as (
    select
        a.upos,
        a.feats,
        split_part(f.pair, '=', 1) as feature,
        substr(f.pair, strpos(f.pair, '=') + 1) as value
    from ud_analyses as a
    cross join unnest(string_split(coalesce(a.feats, ''), '|')) as f (pair)
    where f.pair <> ''
),

ud_pos_code as (
    -- the article rows (a FEATS condition) win over the unconditional row of the same UPOS
    select
        a.upos,
        a.feats,
        m.code
    from ud_analyses as a
    inner join ud_upos_to_tag as m
        on
            a.upos = m.upos
            and (m.condition is null or contains('|' || coalesce(a.feats, '') || '|', '|' || m.condition || '|'))
    qualify row_number() over (partition by a.upos, a.feats order by m.condition is null, m.condition) = 1
),

ud_position_codes as (
    -- position 1 from the UPOS, 4 from the Tense/Aspect pair, the others from single features
    select
        upos,
        feats,
        1 as position,
        code
    from ud_pos_code
    union all
    select
        v.upos,
        v.feats,
        m.position,
        m.code
    from ud_feature_values as v
    inner join ud_feats_to_tag as m on v.feature = m.feature and v.value = m.value
    -- features that the AGDT-lineage tags do not carry on this part of speech (seed ud_feats_not_in_tag)
    anti join ud_feats_not_in_tag as x on v.upos = x.upos and v.feature = x.feature and v.value = x.value
    union all
    select
        a.upos,
        a.feats,
        4 as position,
        m.code
    from ud_analyses as a
    inner join ud_tense_aspect_to_tag as m
        on
            regexp_extract(a.feats, '(?:^|\|)Tense=([^|]*)', 1) = coalesce(m.tense, '')
            and regexp_extract(a.feats, '(?:^|\|)Aspect=([^|]*)', 1) = coalesce(m.aspect, '')
),

ud_slot_codes as (
    -- a position with no code, or with conflicting codes, stays '-'
    select
        a.upos,
        a.feats,
        s.position,
        case when count(distinct c.code) = 1 then any_value(c.code) else '-' end as code
    from ud_analyses as a
    cross join tag_slots as s
    left join ud_position_codes as c
        on
            a.upos = c.upos
            and a.feats is not distinct from c.feats
            and s.position = c.position
    group by a.upos, a.feats, s.position
),

ud_tags as (
    -- no tag when the UPOS has no row in ud_upos_to_tag
    select
        upos,
        feats,
        case
            when any_value(code) filter (where position = 1) <> '-' then string_agg(code, '' order by position)
        end as tag
    from ud_slot_codes
    group by upos, feats
),

-- one tag per token ------------------------------------------------------------------------------
token_tags as (
    select
        t.*,
        case
            when t.project in {{ from_ud }} then u.tag
            when coalesce(n.tag_rule, 'missing') = 'missing' and regexp_full_match(t.form, {{ punct_form }})
                then 'u--------'
            else n.tag
        end as tag,
        case
            when t.project in {{ from_ud }} and t.upos is null then 'missing'
            when t.project in {{ from_ud }} and u.tag is null then 'unnormalizable'
            when t.project in {{ from_ud }} then 'derived_from_ud'
            when
                coalesce(n.tag_rule, 'missing') = 'missing' and regexp_full_match(t.form, {{ punct_form }})
                then 'punct_from_form'
            else coalesce(n.tag_rule, 'missing')
        end as tag_rule,
        case
            when t.project in {{ ud_projects }}
                then regexp_extract(t.feats, '(?:^|\|)Gender=([^|]*)', 1)
        end as source_gender
    from tokens as t
    left join native_tags as n
        on
            t.postag = n.postag
            and t.project not in {{ from_ud }}
    left join ud_tags as u on t.upos = u.upos and t.feats is not distinct from u.feats
),

-- published FEATS from the tag (plus the finer source Gender), per distinct (tag, source Gender)
tag_genders as (
    select distinct
        tag,
        nullif(source_gender, '') as source_gender,
        nullif(source_gender, '') is not null
        and (
            substr(tag, 7, 1) = '-'
            or (substr(tag, 7, 1) = 'c' and source_gender in ('Fem', 'Masc', 'Fem,Masc'))
        ) as gender_from_source
    from token_tags
    where tag is not null
),

tag_feature_values as (
    select
        g.tag,
        g.source_gender,
        m.feature,
        m.value
    from tag_genders as g
    inner join tag_slots as p on p.position >= 2
    inner join tag_positions as m
        on
            p.position = m.position
            and substr(g.tag, p.position, 1) = m.code
    where m.feature is not null and not (m.feature = 'Gender' and g.gender_from_source)
    union all
    select
        tag,
        source_gender,
        'Gender' as feature,
        source_gender as value
    from tag_genders
    where gender_from_source
),

published_feature_values as (
    select v.*
    from tag_feature_values as v
    inner join published_types as t on v.feature = t.feature
),

tag_feats as (
    select
        g.tag,
        g.source_gender,
        string_agg(v.feature || '=' || v.value, '|' order by v.feature) as feats
    from tag_genders as g
    left join published_feature_values as v
        on
            g.tag = v.tag
            and g.source_gender is not distinct from v.source_gender
    group by g.tag, g.source_gender
),

-- lemmas ---------------------------------------------------------------------------------------
source_lemmas as (
    select distinct lemma
    from tokens
    where lemma is not null and trim(lemma) not in ('', '_')
),

lookalike_pairs as ({{ seed_lookalike_pairs() }}),

lemma_steps as (
    -- SPEC §3 and §5.1 "Lemmas": NFC; leading combining marks, spacing accents and whitespace
    -- dropped (̓ἀχαιός → ἀχαιός); digits dropped (homograph digits μῆνις1 → μῆνις); Latin
    -- look-alike letters mapped (seed latin_lookalikes); apostrophes → U+2019; every other
    -- character that is not a Greek letter, a combining mark, U+2019 or a hyphen dropped (~ ? % |
    -- parentheses, commas, spaces); hyphens trimmed at both ends and runs collapsed (the compound
    -- notation κατά-ἕζομαι keeps its inner hyphen); lowercased with lower_grc; grave → acute.
    -- A lemma left without a letter is NULL.
    select
        l.lemma as source_lemma,
        regexp_replace(
            regexp_replace(nfc_normalize(trim(l.lemma)), '^[\p{M}\p{Sk}\p{Lm}\s]+', ''), '\p{N}', '', 'g'
        ) as lemma_stripped,
        p.pairs
    from source_lemmas as l
    cross join lookalike_pairs as p
),

lemmas_clean as (
    select
        source_lemma,
        case when regexp_matches(lemma_clean, '\p{L}') then regexp_replace(lemma_cased, '^[\p{M}\x{2019}]+|[\p{M}\x{2019}]+$', '', 'g') end
            as lemma,
        -- which §5.1 lemma rules changed it (counted in mart_representation_changes)
        list_filter([
            case when regexp_matches(nfc_normalize(trim(source_lemma)), '^[\p{M}\p{Sk}\p{Lm}]') then 'leading_mark' end,
            case when regexp_matches(source_lemma, '\p{N}') then 'digits' end,
            case when regexp_matches(source_lemma, '[A-Za-z]') and regexp_matches(lemma_clean, '\p{Greek}') then 'latin_letters' end,
            case when regexp_matches(source_lemma, '[^\p{L}\p{M}\p{N}\p{Sk}\p{Lm}\x{2019}\x{0027}-]') then 'other_characters' end,
            case when contains(nfd(source_lemma), chr(768)) then 'grave_to_acute' end,
            case when not regexp_matches(lemma_clean, '\p{L}') then 'nulled' end,
            -- a lemma never starts or ends with a mark: an elision mark (`οὐδ’`, `δ̓`), a keraia, an
            -- accent that no letter took (NFC), all dropped at the edges
            case when regexp_matches(lemma_clean, '\p{L}') and regexp_matches(lemma_cased, '^[\p{M}\x{2019}]|[\p{M}\x{2019}]$') then 'edge_mark' end
        ], lambda r: r is not null) as lemma_rules  -- noqa: RF02
    from (
        select
            source_lemma,
            lemma_clean,
            {{ lemma_cased('lemma_clean') }} as lemma_cased
        from (
            select
                source_lemma,
                trim(
                    regexp_replace(
                        {{ keep_greek("regexp_replace(" ~ map_lookalikes('lemma_stripped', 'pairs') ~ ", '[\\x{0027}\\x{02BC}\\x{1FBD}\\x{1FBF}]', chr(8217), 'g')", '\\-') }},  -- noqa: PRS
                        '-+', '-', 'g'
                    ),
                    '-'
                ) as lemma_clean
            from lemma_steps
        )
    )
),

compound_lemmas as (select * from {{ ref('compound_lemmas') }}),

lemmas as (
    -- a compound lemma that aligned tokens of another project give one dictionary lemma for is
    -- mapped to it (seed compound_lemmas, derived by models/marts/reporting/mart_compound_lemma_candidates.sql)
    select
        h.source_lemma,
        coalesce(c.dictionary_lemma, h.lemma) as lemma,
        case when c.compound is not null then list_append(h.lemma_rules, 'compound_mapped') else h.lemma_rules end
            as lemma_rules
    from lemmas_clean as h
    left join compound_lemmas as c on h.lemma = c.compound
),

analysed as (
    select
        t.sentence_uid,
        t.token_pos,
        t.project,
        t.is_artificial,
        t.postag,
        t.tag,
        t.tag_rule,
        coalesce(u.upos, 'X') as tag_upos,
        -- punctuation (SPEC §5): the tag says so, the UD UPOS says so, or the form has no letter or
        -- digit at all (editorial signs such as '...', '∠' or a comma mis-tagged as a word)
        coalesce(substr(t.tag, 1, 1) = 'u', false)
        or coalesce(t.upos = 'PUNCT', false)
        or (t.form is not null and trim(t.form) <> '' and not regexp_matches(t.form, '[\p{L}\p{N}]')) as is_punct,
        f.feats,
        case when t.project in {{ ud_projects }} then t.feats else f.feats end as feats_full,
        t.feats as feats_source,
        t.upos as upos_source,
        l.lemma,
        l.lemma_rules
    from token_tags as t
    left join upos_from_tag as u on substr(t.tag, 1, 1) = u.code
    left join tag_feats as f
        on
            t.tag = f.tag
            and nullif(t.source_gender, '') is not distinct from f.source_gender
    left join lemmas as l on t.lemma = l.source_lemma
),

final as (
    select
        * exclude (tag_upos),
        case when is_punct then 'PUNCT' else tag_upos end as upos
    from analysed
)

select * from final
