"""The Markdown form of a memory document (docs/markdown-memory.md): a file's managed section
and its prose. :mod:`~curator_io.markdown.document` reads and writes a file; :mod:`~curator_io.markdown.structure`
says where its markers and blocks are; :mod:`~curator_io.markdown.line_values` writes a value on one line and
reads it back; :mod:`~curator_io.markdown.adoption` and :mod:`~curator_io.markdown.outline` adopt a file
written by hand (``memory import``)."""
