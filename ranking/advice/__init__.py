"""Advice beside the reports: what SPEC does not decide, told to a reviewer and a curator.

- :mod:`ranking.advice.lookalikes` — instruction texts that resemble one under another key.
- :mod:`ranking.advice.comparisons` — which texts are compared with which, for each use: the one chooser.
- :mod:`ranking.advice.lookalike_model` — what a look-alike is: the pair, its places, the bounded
  result, and the advice (what to do about one), written once for every output.
- :mod:`ranking.advice.words` — an instruction's words, as look-alikes compare them.
- :mod:`ranking.advice.folding` — a text as a reader sees it: ignorable characters, confusable letters.
- :mod:`ranking.advice.relation` — whether a look-alike restates the other text or contradicts it.

Pure, and deterministic: computed from a bundle (and the memory written), never read by a
decision, a report or a digest. Checking, the ledger, the views and the command line show it.
"""

__all__: list[str] = []
