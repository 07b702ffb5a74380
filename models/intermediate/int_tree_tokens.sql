-- Published dependency trees (SPEC §4–§5). Artificial (elliptic) nodes, punctuation tokens and empty
-- placeholder rows are removed; every dependent of a removed token re-attaches to its nearest
-- surviving ancestor; ill-formed source trees are repaired deterministically (duplicate ids,
-- empty or out-of-range heads, self-loops, cycles, extra roots, no root); tokens are re-indexed
-- 1..n in document order. Every change is a code in `repair`. Grain: one row per published token
-- (word token that survives); a sentence with no surviving token has no rows.
{{ repaired_tree(keep_punct=false) }}
