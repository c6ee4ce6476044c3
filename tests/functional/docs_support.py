"""The fenced blocks of the README and the docs/ pages, for the tests that run them."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# the pages whose ```sql blocks run against a warehouse (and, in CI, the BI snapshot)
SQL_PAGES = ("README.md", "docs/sql.md", "docs/risk-control.md")


def blocks(page: str, language: str) -> list[str]:
    """The text of every ```<language> block of `page` (a path relative to the repository)."""
    return re.findall(rf"```{language}\n(.*?)```", (REPO_ROOT / page).read_text(), re.S)


def sql_blocks() -> list[str]:
    """Every ```sql block of SQL_PAGES, in page order."""
    return [q for page in SQL_PAGES for q in blocks(page, "sql")]
