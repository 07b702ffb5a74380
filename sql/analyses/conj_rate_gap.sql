-- For each author annotated by more than one project: the % of published tokens with DEPREL
-- `conj` in each project's own parse of the kept sentences (table `tokens_all_parses`), and each
-- pair's difference in percentage points.
with

rates as (
    select
        author,
        project,
        100 * avg((deprel = 'conj')::int) as conj_pct
    from tokens_all_parses
    where kept_sentence_key is not null and is_published_token
    group by author, project
)

select
    a.author,
    a.project as project_a,
    b.project as project_b,
    round(a.conj_pct, 2) as conj_pct_a,
    round(b.conj_pct, 2) as conj_pct_b,
    round(a.conj_pct - b.conj_pct, 2) as gap_pp
from rates as a
inner join rates as b on a.author = b.author and a.project < b.project
order by a.author asc, a.project asc, b.project asc
