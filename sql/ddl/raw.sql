-- Raw layer (SPEC §2): lossless, values exactly as upstream wrote them, plus provenance.
-- Created by `sphragis build` before ingest; the ingest loader fills these tables.

create or replace table raw_files (
    file_id integer primary key,          -- 1.. in (snapshot, path) order
    snapshot varchar not null,            -- pin-list snapshot name (sphragis/sources.json)
    project varchar not null,             -- project key (the registry sql/seeds/projects.csv)
    treebank_source varchar not null,     -- 'AGDT 2.1', 'UD Perseus', ...
    commit varchar not null,              -- full upstream commit of the snapshot
    upstream varchar not null,            -- upstream repository URL
    license varchar not null,
    path varchar not null,                -- path inside the upstream repository
    format varchar not null,              -- the parser: the project's format in the registry
    sha256 varchar not null,              -- of the file bytes
    bytes bigint not null,
    n_sentences_expected integer not null, -- sentences counted apart from the parser; = ingested + sentence rejects (checked)
    n_sentences_ingested integer not null,
    n_words_expected integer not null,    -- words (XML word start tags, CoNLL-U token rows) counted apart from the parser; = tokens ingested + words rejected (checked)
    n_tokens_ingested integer not null,
    root_attrs map (varchar, varchar),    -- XML: attributes of the root element, verbatim
    preamble varchar[]                    -- XML: serialized non-sentence children of the root (header, annotators); as rows: raw_file_elements
);

create or replace table raw_sentences (
    sentence_uid bigint primary key,      -- global, 1.. in (file_id, sentence_pos) order
    file_id integer not null,
    sentence_pos integer not null,        -- 1-based position of the sentence in its file
    line integer not null,                -- source line where the sentence starts
    upstream_sentence_id varchar,         -- XML @id, CoNLL-U `# sent_id`
    document_id varchar,                  -- XML @document_id, CoNLL-U last `# newdoc id`
    subdoc varchar,                       -- XML @subdoc (passage), NULL for CoNLL-U
    attrs map (varchar, varchar),         -- XML: every sentence attribute verbatim, in document order
    comments varchar[],                   -- CoNLL-U: comment lines verbatim (with the leading '#')
    extra_xml varchar[],                  -- XML: serialized non-word children of the sentence, if any
    n_tokens integer not null
);

create or replace table raw_tokens (
    sentence_uid bigint not null,
    token_pos integer not null,           -- 1-based position in the sentence, document order
    line integer not null,                -- source line of the word element / CoNLL-U row
    id varchar,                           -- XML @id or CoNLL-U ID, verbatim (e.g. '3', '2-3', '4.1')
    form varchar,
    lemma varchar,
    upos varchar,                         -- CoNLL-U only
    xpos varchar,                         -- XML @postag or CoNLL-U XPOS
    feats varchar,                        -- CoNLL-U only
    head varchar,                         -- verbatim text
    deprel varchar,                       -- XML @relation or CoNLL-U DEPREL
    deps varchar,                         -- CoNLL-U only
    misc varchar,                         -- CoNLL-U only
    attrs map (varchar, varchar)          -- XML: every word attribute verbatim (artificial, cite, ref, sem, gloss...)
);

create or replace table raw_file_elements (
    file_id integer not null,
    element_pos integer not null,         -- 1-based, document order over the preamble and its descendants
    parent_pos integer,                   -- the enclosing element's element_pos; NULL for a child of the root
    depth integer not null,               -- 1 for a child of the root
    tag varchar not null,                 -- local name; '#comment', '#pi', '#entity' for other nodes
    namespace varchar,                    -- namespace URI of the tag, NULL for none
    attrs map (varchar, varchar),         -- every attribute verbatim, in document order ({uri}name if namespaced)
    text varchar,                         -- the element's text before its first child, verbatim
    tail varchar                          -- the text after the element, inside its parent, verbatim
);

create or replace table raw_metadata_files (
    snapshot varchar not null,            -- pin-list snapshot name
    project varchar not null,
    path varchar not null,                -- path inside the upstream repository (pin key `metadata_files`)
    sha256 varchar not null,              -- of the file bytes
    bytes bigint not null,
    content varchar not null              -- the file's text, verbatim (UTF-8; an undecodable byte written \xNN)
);

create or replace table ingest_rejects (
    file_id integer,
    path varchar not null,
    line integer,                         -- line the parser stopped at / the bad line
    sentence_pos integer,                 -- position of the rejected sentence in its file, when known
    upstream_sentence_id varchar,
    reason varchar not null,
    n_words integer not null              -- words of the file it takes: the rejected sentence's, 1 for a word outside any sentence, 0 for a file-level problem
);

-- The pin list's missing upstream files (sphragis/sources.json `missing`): not parsed
-- from the sources but made anew by every build from the pin list (sphragis/pins.py runs this
-- statement, then inserts the rows) for the seed-000 reconciliation.
create or replace table pin_missing_files (
    snapshot varchar,                     -- pin-list snapshot name
    project varchar,                      -- project key
    treebank_source varchar,              -- display name (SPEC §1)
    revision varchar,                     -- pinned commit
    path varchar,                         -- path of the missing file inside the upstream repository
    ud_split varchar,                     -- train | dev | test for a UD split file, else NULL
    split_sentences integer,              -- that split's sentence count from the snapshot's stats.xml
    devtest_sentences integer             -- dev + test sentence count from the snapshot's stats.xml
);
