"""The PHQ-8 run JSON format (docs/formats.md): `parse(con, path, data, options) -> ParsedRun`."""

from riskcov.formats import SUFFIXES_BY_FORMAT
from riskcov.formats.phq8_json.decoders import started_early as prepare
from riskcov.formats.phq8_json.parse import parse
from riskcov.formats.phq8_json.validate import FORMAT_NAME, ITEMS, NULL_MASKED, SIGNALS

SUFFIXES = SUFFIXES_BY_FORMAT["phq8_json"]

__all__ = ["FORMAT_NAME", "ITEMS", "NULL_MASKED", "SIGNALS", "SUFFIXES", "parse", "prepare"]
