"""The XML preamble as rows (SPEC §2, lossless raw layer): the parser keeps every element child of
a treebank file's root other than its sentences (``header``, ``annotator``, ``date``, PapyGreek's
``document_meta`` and ``hand_meta``...), serialized, in ``raw_files.preamble``;
:func:`element_columns` turns them into one row per element, comment and processing instruction
(at any depth) of ``raw_file_elements``, so that the models can type a project's file metadata
without any Python of their own.
"""

from __future__ import annotations

from lxml import etree

#: The ``tag`` of the nodes that are no elements.
_NODE_KINDS = {etree.Comment: "#comment", etree.PI: "#pi", etree.Entity: "#entity"}
#: The columns of ``raw_file_elements`` (``sql/ddl/raw.sql``) this module fills, in order.
ELEMENT_COLUMNS = ("file_id", "element_pos", "parent_pos", "depth", "tag", "namespace", "attrs", "text", "tail")


def element_columns(files: list[tuple[int, list[str] | None]]) -> dict[str, list]:
    """Rows of ``raw_file_elements`` for the preambles of ``files``.

    Args:
        files: (file_id, preamble) per file: the serialized root children of
            :attr:`sphragis.ingest.parsers.ParsedFile.preamble`, or None.

    Returns:
        Parallel lists keyed by :data:`ELEMENT_COLUMNS`, one entry per node in document order:
        ``element_pos`` (1-based within the file, over the preamble's elements in order and their
        descendants depth first), ``parent_pos`` (NULL for a child of the root), ``depth`` (1 for
        a child of the root), ``tag`` (local name; ``#comment``, ``#pi`` or ``#entity`` for a
        comment, a processing instruction (``text``: target and content) or an entity reference,
        whose ``text`` is its content), ``namespace`` (URI or NULL),
        ``attrs`` (every attribute verbatim, in document order; a namespaced name in Clark
        notation ``{uri}name``, as ``raw_files.root_attrs``), ``text`` and ``tail`` (verbatim, NULL
        when absent).

    Raises:
        ValueError: a preamble entry that is not well-formed XML (names the file id); the parser
            writes only serialized elements, so this is a bug, never bad input.
    """
    cols: dict[str, list] = {c: [] for c in ELEMENT_COLUMNS}
    for file_id, preamble in files:
        pos = 0
        for fragment in preamble or ():
            try:
                top = etree.fromstring(fragment.encode("utf-8"), etree.XMLParser(resolve_entities=False,
                                                                                  huge_tree=True))
            except etree.XMLSyntaxError as exc:
                raise ValueError(f"file {file_id}: a preamble element is not well-formed XML: {exc}") from exc
            stack: list[tuple[etree._Element, int | None, int]] = [(top, None, 1)]
            while stack:
                node, parent, depth = stack.pop()
                pos += 1
                if isinstance(node.tag, str):
                    qname = etree.QName(node.tag)
                    tag, namespace, attrs, text = qname.localname, qname.namespace, dict(node.attrib), node.text
                else:  # a comment, processing instruction or (unresolved) entity reference
                    tag, namespace, attrs = _NODE_KINDS.get(node.tag, "#node"), None, {}
                    text = f"{node.target} {node.text or ''}".rstrip() if node.tag is etree.PI else node.text
                for column, value in zip(ELEMENT_COLUMNS, (file_id, pos, parent, depth, tag, namespace, attrs, text,
                                                           node.tail if parent is not None else None)):
                    cols[column].append(value)
                if isinstance(node.tag, str):
                    stack.extend((child, pos, depth + 1) for child in reversed(node))
    return cols
