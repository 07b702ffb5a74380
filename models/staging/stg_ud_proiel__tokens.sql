{{ stg_conllu_tokens('ud_proiel') }}
