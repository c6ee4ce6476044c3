"""The PHQ-8 run JSON format (docs/formats.md): `parse(con, path, data, options) -> ParsedRun`."""

from riskcov.formats.phq8_json.decoders import started_early as prepare
from riskcov.formats.phq8_json.parse import parse
from riskcov.formats.phq8_json.validate import FORMAT_NAME, ITEMS, NULL_MASKED, SIGNALS

SUFFIXES = (".json",)

__all__ = ["FORMAT_NAME", "ITEMS", "NULL_MASKED", "SIGNALS", "SUFFIXES", "parse", "prepare"]
