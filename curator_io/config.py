"""The ranking config (SPEC §2). A config outside its ranges is a usage error."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from curator_io import grammar as g
from curator_io.errors import ConfigError, InputError, pointer_of
from curator_io.jsonio import parse_json

__all__ = ["Config", "parse_config", "load_config", "DEFAULT_CONFIG", "THRESHOLD_RANGE", "INT_RANGES", "MAX_SELECTED"]

#: SPEC §2: "the limit of five is hard".
MAX_SELECTED = 5
#: SPEC §2's range of each INT member, (least, most); most None: up to INT's own bound. The one
#: statement of them: parse_config checks them, the published report schema is built from them.
INT_RANGES: dict[str, tuple[int, int | None]] = {
    "max_selected": (1, MAX_SELECTED),
    "max_operations": (1, None),
    "max_operation_bytes": (1, None),
    "max_delta_bytes": (1, None),
    "min_lineages": (1, None),
    "min_lineages_broad": (1, None),
    "min_lineages_user": (1, None),
}
#: SPEC §2: a threshold is a number in [0, 100] (with at most 2 fractional digits).
THRESHOLD_RANGE = (0, 100)


@dataclass(frozen=True, slots=True)
class Config:
    threshold: int | float = 40
    """As written; compare with :attr:`threshold_hundredths`."""
    max_selected: int = 5
    max_operations: int = 6
    max_operation_bytes: int = 1200
    max_delta_bytes: int = 4000
    min_lineages: int = 2
    min_lineages_broad: int = 3
    min_lineages_user: int = 1

    @property
    def threshold_hundredths(self) -> int:
        """SPEC §2: the threshold means its shortest round-trip decimal, exactly; in
        hundredths, as a ``final`` score is, that decimal is a whole number.

        Rounding is exact: a number in [0, 100] is within far less than half a
        hundredth of a decimal with at most 2 fractional digits, and so is the
        product with 100 of the whole number it means.
        """
        return round(self.threshold * 100)

    def to_json(self) -> dict[str, int | float]:
        """All eight members, as every report carries them."""
        return asdict(self)


DEFAULT_CONFIG = Config()


def _bad(name: str, detail: str) -> ConfigError:
    return ConfigError("config.invalid", f"{name}: {detail}", pointer=pointer_of(name))


def _threshold(value: Any) -> int | float:
    least, most = THRESHOLD_RANGE
    if not g.is_number(value) or not least <= value <= most:
        raise _bad("threshold", f"expected a number in [{least}, {most}], got {g.shown(value)}")
    text = repr(value)
    fraction = text.partition(".")[2]
    if "e" in text or len(fraction) > 2:
        raise _bad("threshold", f"{text} has more than 2 fractional digits")
    return int(value) if float(value).is_integer() else value


def parse_config(doc: Any) -> Config:
    """Build a Config from a JSON object; members not given take their defaults."""
    if type(doc) is not dict:
        raise ConfigError("config.invalid", "a config must be a JSON object", pointer="")
    values: dict[str, Any] = {}  # the threshold may be a float, every other member is an int
    for name, value in doc.items():
        if name == "threshold":
            values[name] = _threshold(value)
        elif name in INT_RANGES:
            least, most = INT_RANGES[name]
            if not g.is_int(value) or value < least:
                raise _bad(name, f"expected a whole number from {least} to {g.MAX_INT}, got {g.shown(value)}")
            if most is not None and value > most:  # max_selected alone: SPEC §2's words
                raise _bad(name, "the limit of five is hard")
            values[name] = int(value)
        else:
            # repr: the name is the input's, and may hold a line break; an error is one line.
            raise ConfigError("config.invalid", f"{name!r} is not a config member", pointer=pointer_of(name))
    return Config(**values)


def load_config(raw: bytes) -> Config:
    """A config file's bytes as a Config: I-JSON (SPEC §0) holding a config object. Every
    failure is ``config.invalid`` (exit 2): the config is the caller's choice, not the input."""
    try:
        doc = parse_json(raw)
    except InputError as e:
        raise ConfigError("config.invalid", e.detail, pointer=e.pointer) from e
    return parse_config(doc)
