"""Open a published BI snapshot as a BI tool does and run every ```sql block of README.md.

Run it with the interpreter of a venv that has what Superset uses (`duckdb==1.4.*`,
`duckdb-engine`, `SQLAlchemy`), not riskcov's own:

    python scripts/check_bi_reader.py SNAPSHOT [README.md]

The snapshot is opened read-only through SQLAlchemy (`duckdb:///PATH` with
`access_mode=read_only`); each block runs as one statement and its rows are fetched. Any error
(a driver that cannot read the file, a query the README shows that fails) prints the block and
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


def sql_blocks(readme: Path) -> list[str]:
    """The text of every ```sql fenced block, in file order."""
    return [b.strip().rstrip(";") for b in BLOCK.findall(readme.read_text())]


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    snapshot = Path(argv[0]).resolve()
    readme = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parents[1] / "README.md"
    if not snapshot.is_file():
        print(f"check_bi_reader: no snapshot at {snapshot}", file=sys.stderr)
        return 1
    blocks = sql_blocks(readme)
    if not blocks:
        print(f"check_bi_reader: no ```sql blocks in {readme}", file=sys.stderr)
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
        print(f"check_bi_reader: {failed} of {len(blocks)} README SQL blocks failed", file=sys.stderr)
        return 1
    print(f"check_bi_reader: all {len(blocks)} README SQL blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
