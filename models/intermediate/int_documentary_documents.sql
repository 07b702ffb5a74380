-- The documentary texts (registry authorship_rule documentary_persons: PapyGreek's papyri), their
-- own registry beside the literary works registry (SPEC §6): one row per document (file) with its
-- Trismegistos and HGV ids, date range (as written; `is_date_range_inverted` flags a range whose
-- bounds upstream gives in the wrong order) and place (the project's `document_meta`), its hands and
-- their text types, and its persons by role (int_documentary_persons): authors and writers apart.
-- int_curated_sentences gives its sentences the decision `documentary`. Grain: one row per document.
with

documents as (
    {{ union_staged('documents', authorship_rule='documentary_persons') }}
),

hands as (
    {{ union_staged('hands', authorship_rule='documentary_persons') }}
),

persons as (select * from {{ ref('int_documentary_persons') }}),

hand_summary as (
    select
        file_id,
        count(*) as n_hands,
        list(distinct text_category order by text_category) filter (where text_category is not null)
            as text_categories,
        list(distinct text_hypercategory order by text_hypercategory) filter (where text_hypercategory is not null)
            as text_hypercategories
    from hands
    group by file_id
),

role_summary as (
    select
        file_id,
        list(distinct pg_id order by pg_id) filter (where role = 'author' and pg_id is not null) as author_pg_ids,
        list(distinct pg_id order by pg_id) filter (where role = 'writer' and pg_id is not null) as writer_pg_ids,
        list(distinct pg_id order by pg_id) filter (where role = 'addressee' and pg_id is not null) as addressee_pg_ids,
        bool_or(is_own_hand) as has_own_hand
    from persons
    group by file_id
),

final as (
    select
        d.project,
        d.file_id,
        d.file_name as document_key,
        d.project || ' | ' || d.file_name as registry_key,
        d.document_name,
        d.series_name,
        d.series_type,
        d.tm_id,
        d.hgv_id,
        d.date_not_before,
        d.date_not_after,
        coalesce(d.date_not_before > d.date_not_after, false) as is_date_range_inverted,
        d.place_name,
        coalesce(h.n_hands, 0) as n_hands,
        coalesce(h.text_categories, []) as text_categories,
        coalesce(h.text_hypercategories, []) as text_hypercategories,
        coalesce(r.author_pg_ids, []) as author_pg_ids,
        coalesce(r.writer_pg_ids, []) as writer_pg_ids,
        coalesce(r.addressee_pg_ids, []) as addressee_pg_ids,
        coalesce(r.has_own_hand, false) as has_own_hand
    from documents as d
    left join hand_summary as h on d.file_id = h.file_id
    left join role_summary as r on d.file_id = r.file_id
)

select * from final
