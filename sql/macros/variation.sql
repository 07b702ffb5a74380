{%- macro mean_abs_pairwise_diff(rates, fixed, varied, groups) -%}
{#- Per (kind, scheme, category, <fixed>): mean |rate_1 - rate_2| over pairs of <varied> values
    (v1 < v2) among the cells of that <fixed> value, for the <fixed> values listed in <groups>.
    fixed=author, varied=project gives the annotator comparison; fixed=project, varied=author the
    authorial one (SPEC §11). -#}
select
    r1.kind,
    r1.scheme,
    r1.category,
    r1.{{ fixed }},
    avg(abs(r1.rate_pct - r2.rate_pct)) as mean_abs_diff
from {{ rates }} as r1
inner join {{ rates }} as r2
    on
        r1.kind = r2.kind
        and r1.scheme = r2.scheme
        and r1.category = r2.category
        and r1.{{ fixed }} = r2.{{ fixed }}
        and r1.{{ varied }} < r2.{{ varied }}
where r1.{{ fixed }} in (select g.{{ fixed }} from {{ groups }} as g)
group by r1.kind, r1.scheme, r1.category, r1.{{ fixed }}
{%- endmacro %}
