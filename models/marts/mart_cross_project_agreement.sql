-- Cross-project agreement per project pair (SPEC §5.1, the measure every build reports): the share
-- of pairs with identical published `text`, and on aligned tokens the share agreeing on form,
-- lemma, UPOS, FEATS (whole string), each published FEATS feature (absent = absent counts as
-- agreement), HEAD and DEPREL; over the pairs whose two records are both retained by curation
-- (`scope` = 'retained'), over all pairs (`scope` = 'all') and over the pairs whose two records
-- belong to the same document (`scope` = 'same_document': the same papyrus annotated by two
-- projects, PapyGreek and Pedalion's papyri). Grain: one row per (scope, project_pair, field);
-- project_pair 'all' sums the pairs.
with

pairs as (select * from {{ ref('mart_cross_project_pairs') }}),

token_pairs as (select * from {{ ref('mart_cross_project_token_pairs') }}),

feature_types as (select feature from {{ ref('feats_published_types') }}),

scopes as (
    select s.scope from (values ('all'), ('retained'), ('same_document')) as s (scope)
),

text_rows as (
    select
        s.scope,
        p.project_pair,
        'text' as field,
        p.text_identical as agrees
    from pairs as p
    inner join scopes as s on {{ in_agreement_scope('s', 'p') }}
),

field_rows as (
    select
        s.scope,
        t.project_pair,
        f.field,
        case f.field
            when 'form' then (t.form_a is not distinct from t.form_b)
            when 'lemma' then (t.lemma_a is not distinct from t.lemma_b)
            when 'upos' then (t.upos_a is not distinct from t.upos_b)
            when 'feats' then (t.feats_a is not distinct from t.feats_b)
            when 'head' then (t.head_a is not distinct from t.head_b)
            when 'deprel' then (t.deprel_a is not distinct from t.deprel_b)
        end as agrees
    from token_pairs as t
    inner join scopes as s on {{ in_agreement_scope('s', 't') }}
    cross join (values ('form'), ('lemma'), ('upos'), ('feats'), ('head'), ('deprel')) as f (field)
),

feature_rows as (
    select
        s.scope,
        t.project_pair,
        'feats:' || ft.feature as field,
        (t.feats_map_a[ft.feature] is not distinct from t.feats_map_b[ft.feature]) as agrees
    from token_pairs as t
    inner join scopes as s on {{ in_agreement_scope('s', 't') }}
    cross join feature_types as ft
),

all_rows as (
    select * from text_rows
    union all
    select * from field_rows
    union all
    select * from feature_rows
),

final as (
    select
        scope,
        coalesce(project_pair, 'all') as project_pair,
        field,
        count(*) as n,
        count(*) filter (where agrees) as n_agree,
        round(100.0 * count(*) filter (where agrees) / count(*), 2) as pct_agree
    from all_rows
    group by grouping sets ((scope, project_pair, field), (scope, field))
)

select * from final
