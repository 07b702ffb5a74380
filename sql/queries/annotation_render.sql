-- CoNLL-U blocks of an annotation (sphragis.evaluation.annotations): one row per sentence of the
-- registered `annotation_selection`, in its order, with the token rows of the registered
-- `annotation_tokens` rendered as 10-column lines (NULL or '' → '_', MISC and DEPS '_') under
-- `# sent_id`, `# <$source_key> = project:path#upstream id` and `# text`. A sentence is skipped,
-- with skip_reason, when the selection gives a reason, when no token survives, or when its forms
-- differ from those of its counterpart (the first differing token is named).
-- Parameter: $source_key. Columns: ord, sent_id, sentence_uid, skip_reason, block, n_words.
with

lines as (
    select
        sentence_uid,
        i,
        form,
        concat_ws(
            chr(9), i::varchar, form, coalesce(nullif(lemma, ''), '_'), coalesce(nullif(upos, ''), '_'),
            coalesce(nullif(xpos, ''), '_'), coalesce(nullif(feats, ''), '_'), head::varchar, deprel, '_', '_'
        ) as line
    from annotation_tokens
),

sentences as (
    select
        sentence_uid,
        list(form order by i) as forms,
        string_agg(line, chr(10) order by i) as body
    from lines
    group by sentence_uid
),

compared as (
    select
        sel.ord,
        sel.sent_id,
        sel.sentence_uid,
        sel.reason,
        s.forms,
        s.body,
        c.forms as counterpart_forms,
        sel.counterpart_uid is not null as has_counterpart,
        list_position(
            list_transform(list_zip(s.forms, c.forms), lambda p: coalesce(p[1] = p[2], false)), false  -- noqa: RF02
        ) as first_diff
    from annotation_selection as sel
    left join sentences as s on sel.sentence_uid = s.sentence_uid
    left join sentences as c on sel.counterpart_uid = c.sentence_uid
),

final as (
    select
        c.ord,
        c.sent_id,
        c.sentence_uid,
        case
            when c.reason is not null then c.reason
            when c.forms is null then 'no token survives punctuation and artificial-node removal'
            when c.has_counterpart and c.counterpart_forms is null
                then 'the UD sentence has no token after punctuation removal'
            when c.has_counterpart and c.first_diff is not null
                then format(
                    'tokenization differs from the UD sentence at token {}: {} vs {} ({} vs {} tokens)',
                    c.first_diff,
                    coalesce('''' || c.forms[c.first_diff] || '''', '<end>'),
                    coalesce('''' || c.counterpart_forms[c.first_diff] || '''', '<end>'),
                    len(c.forms), len(c.counterpart_forms)
                )
        end as skip_reason,
        '# sent_id = ' || c.sent_id || chr(10)
        || '# ' || $source_key || ' = ' || si.project || ':' || si.path || '#' || si.upstream_sentence_id || chr(10)
        || '# text = ' || array_to_string(c.forms, ' ') || chr(10)
        || c.body as block,
        len(c.forms) as n_words
    from compared as c
    left join {{ ref('int_sentences') }} as si on c.sentence_uid = si.sentence_uid
)

select
    ord,
    sent_id,
    sentence_uid,
    skip_reason,
    case when skip_reason is null then block end as block,
    n_words
from final
order by ord
