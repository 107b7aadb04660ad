"""Agents' logs read as evidence (docs/transcripts.md).

- :mod:`~curator_io.transcripts.reader` is the one reader of a log's bytes;
- :mod:`~curator_io.transcripts.lines` gives a file's lines and the digest of every byte;
- :mod:`~curator_io.transcripts.claude_code` and :mod:`~curator_io.transcripts.otlp_spans` read each
  format's records, and :mod:`~curator_io.transcripts.sessions` drafts a session from them;
- :mod:`~curator_io.transcripts.model` is what a log holds once read;
- :mod:`~curator_io.transcripts.redaction` is what a command may not carry into a bundle;
- :mod:`~curator_io.transcripts.into_bundle` records sessions into a bundle.
"""
