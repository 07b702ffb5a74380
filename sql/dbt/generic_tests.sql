{#- dbt only: the runner's model-level tests (sphragis/runner/datatests.py compiles the same SQL itself). -#}

{% test unique_combination(model, combination_of_columns) %}
{#- no two rows share the values of these columns (dbt_utils.unique_combination_of_columns) -#}
select {{ combination_of_columns | join(', ') }}, count(*) as n
from {{ model }}
group by all
having count(*) > 1
{% endtest %}

{% test expression(model, expression) %}
{#- the boolean SQL expression is true on every row (NULL fails; dbt_utils.expression_is_true) -#}
select *
from {{ model }}
where not coalesce(({{ expression }}), false)
{% endtest %}
