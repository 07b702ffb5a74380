{{ stg_xml_tokens('agdt') }}
