-- Authorship of documentary texts (SPEC §6 for the registry's documentary_persons projects:
-- PapyGreek's papyri): not a literary author but persons with a role per hand of the document,
-- as the project curates them (its `hand_meta`/`person` metadata). One row per (document, hand,
-- person, role): the PapyGreek person id (the same person across documents), name, gender code,
-- Trismegistos person id and role, with `role` kept as written so that the author (on whose behalf
-- the text speaks) and the writer (whose hand wrote it) stay apart; `is_own_hand` marks an author
-- who is also a writer of the same hand.
with

persons as (
    {{ union_staged('persons', authorship_rule='documentary_persons') }}
),

same_hand_roles as (
    select
        file_id,
        hand_pos,
        pg_id,
        bool_or(role = 'author') and bool_or(role = 'writer') as is_own_hand
    from persons
    where pg_id is not null
    group by file_id, hand_pos, pg_id
),

final as (
    select
        p.project,
        p.file_id,
        p.file_name as document_key,
        p.hand,
        p.hand_pos,
        p.element_pos,
        p.pg_id,
        p.tm_person_id,
        p.name,
        p.gender_code,
        p.role,
        coalesce(h.is_own_hand, false) as is_own_hand,
        p.occupation,
        p.ethnic_label,
        p.honorific_epithet,
        p.domicile,
        p.age,
        p.education,
        p.handwriting,
        p.uncertain
    from persons as p
    left join same_hand_roles as h on p.file_id = h.file_id and p.hand_pos = h.hand_pos and p.pg_id = h.pg_id
)

select * from final
