{{ stg_xml_tokens('pedalion') }}
