-- Annotation selection `<project>` (sphragis.evaluation.annotations): every sentence of a
-- project by file path then position; sent_id = the upstream sent_id when $is_ud, else
-- `<file name>@<sentence id>` (the UD Perseus convention). Parameters: $project, $is_ud.
-- Columns as annotation_select_fold.
select
    s.sentence_uid,
    case
        when $is_ud then s.upstream_sentence_id
        else s.file_name || '@' || s.upstream_sentence_id
    end as sent_id,
    null::bigint as counterpart_uid,
    null::varchar as reason,
    row_number() over (order by s.path, s.sentence_pos) as ord
from {{ ref('int_sentences') }} as s
where s.project = $project
