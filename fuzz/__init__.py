"""Fuzzing harness (issue 13): no input crashes an entry point.

Every run of a target ends in a result, a normal CLI exit, or an
``EvidenceRankError`` with a stable code and a JSON Pointer that names a place
(RFC 6901). ``fuzz.targets`` holds the targets and that property,
``fuzz.mutate`` the byte- and structure-level mutations (re-sealing what they
change), ``fuzz.seeds`` the seed corpus. Two drivers share them: the short,
seeded run in ``tests/fuzz/`` (part of ``make test``) and the coverage-guided
atheris campaign, ``python -m fuzz`` (``make fuzz``, see docs/fuzzing.md).
"""
