"""`riskcov sql --dialect postgres` run on a real PostgreSQL 15 server that this test starts
itself (initdb and pg_ctl in a temporary folder, as the `postgres` user when run as root),
compared with the DuckDB macros on the same random data: integer losses bit for bit,
continuous ones within 1e-13 relative (PostgreSQL converts a double to NUMERIC through 15
significant digits). Without PostgreSQL's binaries the test skips, unless
RISKCOV_REQUIRE_POSTGRES=1 (.ci/run sets it), where that is a failure."""

from __future__ import annotations

import csv
import io
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from portable_support import LABEL, PORTABLE_COLUMNS, load_inputs, make_data, mismatches, reference
from typer.testing import CliRunner

from riskcov.cli import app

BIN = Path(os.environ.get("RISKCOV_PG_BIN", "/usr/lib/postgresql/15/bin"))


class Postgres:
    """psql against the server of `folder` (a unix socket there)."""

    def __init__(self, folder: Path, port: int, user: list[str]) -> None:
        self.folder, self.port, self.user = folder, port, user

    def run(self, sql: str) -> str:
        out = subprocess.run(
            [*self.user, str(BIN / "psql"), "-h", str(self.folder), "-p", str(self.port), "-U", "postgres",
             "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qAt"],
            input=sql, capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip
        if out.returncode != 0:
            raise AssertionError(f"psql failed: {out.stderr.strip()}")
        return out.stdout

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        text = self.run(f"COPY ({query}) TO STDOUT WITH (FORMAT csv)")
        return [tuple(_value(v) for v in row) for row in csv.reader(io.StringIO(text))]


def _value(v: str) -> Any:
    if v == "":
        return None
    if v in ("t", "f"):
        return v == "t"
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    if not (BIN / "initdb").exists():
        if os.environ.get("RISKCOV_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"RISKCOV_REQUIRE_POSTGRES=1 but no PostgreSQL binaries in {BIN}")
        pytest.skip(f"no PostgreSQL binaries in {BIN} (apt-get install postgresql-15)")
    folder = Path(tempfile.mkdtemp(prefix="riskcov-pg-", dir="/tmp"))
    user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the server runs as postgres
        pw = pwd.getpwnam("postgres")
        os.chown(folder, pw.pw_uid, pw.pw_gid)
        user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = folder / "data"
    subprocess.run(
        [*user, str(BIN / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres", "--no-sync",
         "-E", "UTF8"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    subprocess.run(
        [*user, str(BIN / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-t", "60", "start",
         "-o", f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    try:
        yield Postgres(folder, port, user)
    finally:
        subprocess.run(
            [*user, str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True, check=False, timeout=60,
        )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def _sql(table: str, metric: str, **flags: str) -> str:
    args = [
        "sql",
        "--table",
        table,
        "--dialect",
        "postgres",
        "--metric",
        metric,
        "--abstained",
        "confidence IS NULL",
    ]
    if table == "preds":
        args += ["--series", "series", "--cluster", "cluster"]
    for k, v in flags.items():
        args += [f"--{k.replace('_', '-')}", v]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    return out.output.strip().rstrip(";").split("\n", 1)[1]


def _load(pg: Postgres, data: dict[str, list[tuple[Any, ...]]]) -> None:
    def lit(v: Any) -> str:
        return "NULL" if v is None else repr(v)

    pg.run(
        "DROP TABLE IF EXISTS preds; DROP TABLE IF EXISTS weights;"
        "CREATE TABLE preds (series INT, cluster INT, unit INT, confidence FLOAT8, loss FLOAT8, "
        "scale FLOAT8);"
        "CREATE TABLE weights (replicate INT, cluster INT, multiplicity INT);"
        + "".join(f"INSERT INTO preds VALUES ({', '.join(lit(v) for v in r)});" for r in data["scored"])
        + "".join(f"INSERT INTO weights VALUES ({', '.join(map(str, r))});" for r in data["samples"])
    )


@pytest.mark.parametrize("seed", [3, 11])
def test_postgres_rendering_equals_the_duckdb_macros(postgres: Postgres, seed: int) -> None:
    data = make_data(seed, clusters=15, replicates=3)
    con = duckdb.connect()
    load_inputs(con, data)
    want = reference(con)
    # the macros' series 1 divides its integer losses by 3; riskcov sql takes one --loss-scale,
    # so each loss scale is its own rendering over its series
    for series, scale in ((0, 1.0), (1, 3.0), (2, 1.0)):
        rows = [r for r in data["scored"] if r[0] == series]
        _load(postgres, {"scored": rows, "samples": data["samples"]})
        for name in PORTABLE_COLUMNS:
            query = _sql(
                "preds", name, loss_scale=str(scale), samples="weights",
                coverage_grid="0.1,0.25,0.5,0.75,0.9,1.0", alpha_grid="0.0,0.05,0.2,0.35,0.5,1.0",
                label=LABEL,
            )  # fmt: skip
            got = postgres.rows(
                f"SELECT {PORTABLE_COLUMNS[name]} FROM ({query}) AS q ORDER BY {PORTABLE_COLUMNS[name]}"
            )
            ref = [r for r in want[name] if r[0] == series]
            exact = set() if name == "balanced" else {0, 1}  # the macros' fsum vs a running window
            assert mismatches(name, got, ref, exact, rel=1e-13) == [], (seed, series, name)


def test_postgres_auroc_and_ood_equal_duckdb(postgres: Postgres) -> None:
    rows = [(0, c, 0.0, d) for c, d in [(0.9, "id"), (0.5, "id"), (0.5, "ood"), (0.2, "ood"), (None, "ood"),
                                         (0.7, "id"), (0.4, "id"), (0.5, "ood")]]  # fmt: skip
    postgres.run(
        "DROP TABLE IF EXISTS dom; "
        "CREATE TABLE dom (sample_id INT, confidence FLOAT8, loss FLOAT8, domain TEXT);"
        + "".join(
            f"INSERT INTO dom VALUES ({i}, {'NULL' if c is None else c}, {loss}, '{d}');"
            for i, (_, c, loss, d) in enumerate(rows)
        )
    )
    con = duckdb.connect()
    con.execute("CREATE TABLE dom (sample_id INT, confidence DOUBLE, loss DOUBLE, domain TEXT)")
    con.executemany(
        "INSERT INTO dom VALUES (?, ?, ?, ?)", [(i, c, loss, d) for i, (_, c, loss, d) in enumerate(rows)]
    )
    for metric in ("auroc", "ood_at_id_coverage"):
        pg = postgres.rows(f"SELECT * FROM ({_sql('dom', metric)}) AS q ORDER BY 1, 2")
        duck_sql = _sql("dom", metric).replace("DOUBLE PRECISION", "DOUBLE")
        duck = con.execute(f"SELECT * FROM ({duck_sql}) AS q ORDER BY 1, 2").fetchall()
        assert pg == [tuple(int(v) if isinstance(v, int) else v for v in r) for r in duck], metric
    # 0.9, 0.7 beat every OOD score; 0.5 ties two of four and beats two; 0.4 beats two
    assert pg and postgres.rows(f"SELECT auroc FROM ({_sql('dom', 'auroc')}) AS q") == [
        ((4 + 4 + 3 + 2) / 16,)
    ]
