#!/usr/bin/env bash
# The real-driver check (CI runs it after pytest; it runs locally the same way):
# a second venv with what Superset uses (duckdb==1.4.*, duckdb-engine, SQLAlchemy), a small
# warehouse built from examples/example_run.json by riskcov (ingest, a paired evaluate,
# publish), then scripts/check_bi_reader.py opens the snapshot read-only through SQLAlchemy
# and runs every ```sql block of README.md, docs/sql.md and docs/risk-control.md. Any failure
# exits non-zero.
#
#   scripts/check_bi_reader.sh [RISKCOV_BIN_DIR]     (default .venv/bin)
#
# BI_VENV=DIR keeps (and reuses) the second venv there; by default it is made in a temporary
# folder and removed with it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-.venv/bin}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bi_venv="${BI_VENV:-$tmp/bi-venv}"
if [ ! -x "$bi_venv/bin/python" ]; then
    python3 -m venv "$bi_venv"
fi
"$bi_venv/bin/pip" install --quiet --disable-pip-version-check 'duckdb==1.4.*' duckdb-engine SQLAlchemy
export RISKCOV_PUBLISH=0
wh="$tmp/w.duckdb"
"$bin/riskcov" ingest examples/example_run.json --warehouse "$wh"
"$bin/riskcov" evaluate --input examples/example_run.json --mode zero_shot --mode few_shot \
    --bootstrap-resamples 20 --output "$tmp/evaluation.json" --warehouse "$wh" > /dev/null
"$bin/riskcov" publish --to "$tmp/riskcov-bi.duckdb" --warehouse "$wh"
"$bi_venv/bin/python" scripts/check_bi_reader.py "$tmp/riskcov-bi.duckdb"
