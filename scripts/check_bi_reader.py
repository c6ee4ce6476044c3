"""Open a published BI snapshot as a BI tool does and run every ```sql block of the docs.

Run it with the interpreter of a venv that has what Superset uses (`duckdb==1.4.*`,
`duckdb-engine`, `SQLAlchemy`), not riskcov's own:

    python scripts/check_bi_reader.py SNAPSHOT [PAGE.md ...]

(default pages: README.md, docs/sql.md and docs/risk-control.md.)

The snapshot is opened read-only through SQLAlchemy (`duckdb:///PATH` with
`access_mode=read_only`); each block runs as one statement and its rows are fetched. Any error
(a driver that cannot read the file, a query the docs show that fails) prints the block and
exits 1. It prints the tables the driver lists (what a BI tool's picker shows) and each
block's row count and time.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import duckdb
import sqlalchemy

BLOCK = re.compile(r"```sql\n(.*?)```", re.DOTALL)


ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/sql.md", "docs/risk-control.md")


def sql_blocks(pages: list[Path]) -> list[str]:
    """The text of every ```sql fenced block, in page and file order."""
    return [b.strip().rstrip(";") for page in pages for b in BLOCK.findall(page.read_text())]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    snapshot = Path(argv[0]).resolve()
    pages = [Path(a) for a in argv[1:]] or [ROOT / p for p in PAGES]
    if not snapshot.is_file():
        print(f"check_bi_reader: no snapshot at {snapshot}", file=sys.stderr)
        return 1
    blocks = sql_blocks(pages)
    if not blocks:
        print(f"check_bi_reader: no ```sql blocks in {', '.join(map(str, pages))}", file=sys.stderr)
        return 1
    engine = sqlalchemy.create_engine(
        f"duckdb:///{snapshot}", connect_args={"read_only": True, "config": {"access_mode": "read_only"}}
    )
    print(f"duckdb {duckdb.__version__}, SQLAlchemy {sqlalchemy.__version__}, {snapshot}")
    failed = 0
    with engine.connect() as conn:
        tables = sorted(sqlalchemy.inspect(conn).get_table_names())
        print(f"tables listed by the driver: {', '.join(tables)}")
        for no, block in enumerate(blocks, 1):
            start = time.perf_counter()
            try:
                rows = conn.execute(sqlalchemy.text(block)).fetchall()
            except Exception as exc:  # any driver error is a failure to report
                failed += 1
                first = (str(exc).splitlines() or [type(exc).__name__])[0]
                print(f"FAILED block {no}:\n{block}\n  {first}", file=sys.stderr)
                continue
            print(f"block {no}: {len(rows)} rows in {time.perf_counter() - start:.3f} s")
    engine.dispose()
    if failed:
        print(f"check_bi_reader: {failed} of {len(blocks)} documented SQL blocks failed", file=sys.stderr)
        return 1
    print(f"check_bi_reader: all {len(blocks)} documented SQL blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
