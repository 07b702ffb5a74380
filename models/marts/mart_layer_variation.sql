-- What the editors regularised (SPEC §1.1; a project whose format has several annotated layers per
-- word, seed layer_attributes: PapyGreek's diplomatic `orig` against its regularised `reg`): every
-- word of such a project facing each layer the registry does not publish (published_layer), field
-- by field. A value is compared as written, NFC, blanks trimmed, an empty one NULL (`&#10;` in
-- p.babatha.17 included); `<field>_change` says how the layers relate: same, changed, or the field
-- annotated in one layer only (only_published, only_other), or in none (absent). Artificial
-- (elliptic) nodes are kept and flagged. Grain: one row per (word, other layer).
with

words as (
    {{ layer_words() }}
),

final as (
    select
        *,
        {{ layer_changes() }}
    from words
)

select * from final
