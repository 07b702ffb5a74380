{{ stg_xml_tokens('gorman') }}
