"""Who signed a document: keys, signature files and trust files (docs/provenance.md).

- :mod:`ranking.signing.keys` — public keys (Ed25519, ECDSA P-256) and their key ids;
- :mod:`ranking.signing.private_keys` — reading, generating and signing with a private key;
- :mod:`ranking.signing.envelope` — a signature file: a DSSE envelope of an in-toto Statement;
- :mod:`ranking.signing.trust` — the trust file, and the check a signed document must pass;
- :mod:`ranking.signing.signers` — who signed, as a trust file names them (what the ledger stores).

A layer of its own, beside the pipeline: it imports only :mod:`curator_io`, and only
acceptance (:mod:`ranking.checking.acceptance`), the ledger and the commands that sign
import it. PyCA ``cryptography`` loads only to verify (in ``keys``) or with ``private_keys``, which
only the signing commands import.
"""
