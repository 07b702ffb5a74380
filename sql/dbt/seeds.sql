{#- dbt only (the runner loads seeds itself, sphragis/runner/seeds.py): a seed's columns are VARCHAR unless
    its entry in a schema file types them (config: column_types, models/_seeds.yml), as the runner
    loads them; dbt's default would infer types from the CSV. dbt-duckdb then COPYs the CSV in. -#}
{% macro duckdb__create_csv_table(model, agate_table) %}
  {%- set column_override = model['config'].get('column_types', {}) -%}
  {%- set quote_seed_column = model['config'].get('quote_columns', None) -%}
  {% set sql %}
    create table {{ this.render() }} (
        {%- for col_name in agate_table.column_names -%}
            {%- set column_name = (col_name | string) -%}
            {{ adapter.quote_seed_column(column_name, quote_seed_column) }} {{ column_override.get(col_name, 'varchar') }}
            {%- if not loop.last -%}, {%- endif -%}
        {%- endfor -%}
    )
  {% endset %}
  {% call statement('_') -%}
    {{ sql }}
  {%- endcall %}
  {{ return(sql) }}
{% endmacro %}
