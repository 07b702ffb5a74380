{{ stg_xml_tokens('harrington') }}
