-- Native dependency trees with punctuation kept (SPEC §4; for the training treebank): the
-- trees of int_tree_tokens, repaired by the same macro, except that punctuation tokens are not
-- removed: they keep their source heads and their `punct` relation, and their dependents stay on
-- them. Artificial (elliptic) nodes and empty placeholder rows are removed as in the published
-- trees, their dependents re-attached to the nearest surviving ancestor; the main root is the
-- first head-0 token that is not punctuation. Grain: one row per surviving word token
-- (punctuation included); a sentence with no surviving token has no rows.
{{ repaired_tree(keep_punct=true) }}
