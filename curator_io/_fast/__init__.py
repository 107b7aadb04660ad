"""Speed, behind one seam: each module here has the interface of a reference path beside it,
and gives exactly what that path gives (its docstring names the property test that holds it
to it). ``EVIDENCE_RANK_REFERENCE=1`` runs the tool on the reference paths alone, importing
nothing from this package (:data:`curator_io.reference.REFERENCE`).

- :mod:`~curator_io._fast.jcs`: ``rfc8785.dumps`` (:func:`curator_io.canonical.canon`);
- :mod:`~curator_io._fast.json_parse`: the strict I-JSON parser of :mod:`curator_io.jsonio`;
- :mod:`~curator_io._fast.jsonstream`: the whole parse of a large bundle, a chunk at a time;
- :mod:`~curator_io._fast.conformance`: jsonschema's verdict on a report.

bench/RESULTS.md has what each one gains, on which workload.
"""
