-- The training treebank (seed 001 "Leakage controls"): every candidate sentence that
-- mart_training_treebank_exclusions does not exclude, with its stable id, provenance and split.
-- `split` is `train`, or `dev` for the first var('treebank_dev_percent') % of each project's
-- sentences ordered by the stable hash sha256('776' || 'treebank:' || sent_id) (SPEC §8 style).
-- `ord` orders the sentences for writing: project priority, then upstream file path and position.
-- Grain: one row per selected sentence.
with

candidates as (select * from {{ ref('int_training_candidates') }}),

exclusions as (select * from {{ ref('mart_training_treebank_exclusions') }}),

selected as (
    select
        c.*,
        {{ stable_hash('c.sent_id', 'treebank:') }} as split_hash
    from candidates as c
    anti join exclusions as e on c.sentence_uid = e.sentence_uid
),

ranked as (
    select
        *,
        row_number() over (partition by project order by split_hash) as hash_rank,
        count(*) over (partition by project) as n_project
    from selected
),

final as (
    select
        sentence_uid,
        sent_id,
        project,
        treebank_source,
        path,
        file_name,
        sentence_pos,
        upstream_sentence_id,
        snapshot,
        commit,
        license,
        author,
        work,
        work_id,
        dedup_key,
        n_tokens,
        n_punct,
        split_hash,
        case
            when hash_rank <= round(n_project * {{ var('treebank_dev_percent') }} / 100.0) then 'dev'
            else 'train'
        end as split,
        row_number() over (order by priority, path, sentence_pos) as ord
    from ranked
)

select * from final
order by ord
