-- The files of the protocol's further evaluation folds (SPEC §12, seed 001): one row per (fold of
-- the seed protocol_folds, file of its project), in the fold or left out with the reason, so that
-- the manifest names every file it does not draw from:
--   * `duplicate_file`: the file duplicates another of its project (int_duplicate_files: the same
--     bytes, or an earlier annotation of the same sentences; `duplicate_of` names the one kept);
--   * `other_genre`: the fold has a genre (verse) and the works registry gives the file's work
--     another one (the Maximus material of UNESP Trees: a prose paraphrase, not verse);
--   * `work_in_training`: work-level disjointness; the file's work (SPEC §6 work_id) is annotated
--     in one of the fold's training projects (seed protocol_fold_training_projects), so none of its
--     sentences can be a clean evaluation (UNESP's Aeschylus, Eumenides: in AGDT).
-- The file's author, work, work_id and genre come from the curated sentences (SPEC §6); a file of
-- documentary texts has none.
with

protocol_folds as (select * from {{ ref('protocol_folds') }}),

files as (select * from {{ ref('int_files') }}),

duplicates as (select * from {{ ref('int_duplicate_files') }}),

sentences as (select * from {{ ref('int_sentences') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

training_projects as (select * from {{ ref('protocol_fold_training_projects') }}),

training_works as (
    select
        p.fold,
        c.work_id,
        string_agg(distinct c.project, ', ' order by c.project) as projects
    from training_projects as p
    inner join curated as c on p.project = c.project
    where c.work_id is not null
    group by p.fold, c.work_id
),

file_works as (
    select
        s.file_id,
        min(c.author) as author,
        min(c.work) as work,
        min(c.work_id) as work_id,
        min(c.genre) as genre,
        count(distinct c.genre) as n_genres,
        count(*) as n_sentences
    from sentences as s
    inner join curated as c on s.sentence_uid = c.sentence_uid
    group by s.file_id
),

joined as (
    select
        p.fold,
        f.project,
        f.file_id,
        f.path,
        f.file_name,
        coalesce(w.n_sentences, 0) as n_sentences,
        w.author,
        w.work,
        w.work_id,
        w.genre,
        d.reason as duplicate_reason,
        d.duplicate_of_path as duplicate_of,
        t.projects as training_projects,
        case
            when d.file_id is not null then 'duplicate_file'
            when p.genre is not null and (w.genre is distinct from p.genre or w.n_genres > 1) then 'other_genre'
            when t.work_id is not null then 'work_in_training'
        end as reason
    from protocol_folds as p
    inner join files as f on p.project = f.project
    left join file_works as w on f.file_id = w.file_id
    left join duplicates as d on f.file_id = d.file_id
    left join training_works as t on p.fold = t.fold and w.work_id = t.work_id
),

final as (
    select
        fold,
        project,
        file_id,
        path,
        file_name,
        n_sentences,
        author,
        work,
        work_id,
        genre,
        reason is null as in_fold,
        reason,
        case
            when reason = 'duplicate_file'
                then 'duplicates ' || duplicate_of || ' (' || replace(duplicate_reason, '_', ' ') || ')'
            when reason = 'other_genre'
                then coalesce(author || ', ' || work, 'its work') || ': genre ' || coalesce(genre, 'unknown')
            when reason = 'work_in_training'
                then author || ', ' || work || ' (' || work_id || ') is annotated in ' || training_projects
        end as note
    from joined
)

select * from final
order by fold, path
