"""Without ace-framework (on Python 3.11 it cannot be installed), importing the ACE integration
says what it needs; the rest of evidence-rank does not need it."""

from __future__ import annotations

import importlib
import importlib.util

import pytest


@pytest.mark.skipif(importlib.util.find_spec("ace") is not None, reason="ace-framework is installed here")
def test_without_ace_framework_the_integration_says_what_to_install() -> None:
    with pytest.raises(
        ImportError,
        match=r"^ranking\.integrations\.ace needs ace-framework 0\.13, on Python 3\.12 or newer: "
        r"pip install 'evidence-rank\[ace\]'$",
    ):
        importlib.import_module("ranking.integrations.ace")
    importlib.import_module("ranking.integrations.ace_bundle")  # the bundle's layout needs no ace
