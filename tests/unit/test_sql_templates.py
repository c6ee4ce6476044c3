"""The per-sample ingest's SQL templates (sql/per_sample/): every file's header names it and the
fields its text uses; `render` fills them and refuses a missing or an unknown field."""

from __future__ import annotations

import pytest

from riskcov.formats.per_sample import sql_templates
from riskcov.resources import resource_dir

NAMES = sorted(p.stem for p in (resource_dir("sql") / "per_sample").glob("*.sql"))


@pytest.mark.parametrize("name", NAMES)
def test_each_template_renders_with_exactly_its_declared_fields(name: str) -> None:
    fields, text = sql_templates.template(name)
    assert fields and "{{" in text
    got = sql_templates.render(name, **{f: f"<{f}>" for f in fields})
    assert "{{" not in got and all(f"<{f}>" in got for f in fields)
    some = sorted(fields)[0]
    with pytest.raises(ValueError, match=f"template {name} takes"):
        sql_templates.render(name, **{f: "x" for f in fields if f != some})
    with pytest.raises(ValueError, match=f"template {name} takes"):
        sql_templates.render(name, **{f: "x" for f in fields}, unknown="x")


def test_a_header_that_does_not_match_its_text_is_refused(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "sql" / "per_sample"
    folder.mkdir(parents=True)
    (folder / "bad.sql").write_text("-- template: bad\n-- fills: a\nSELECT {{a}}, {{b}}\n")
    (folder / "named.sql").write_text("-- template: other\n-- fills: a\nSELECT {{a}}\n")
    monkeypatch.setattr(sql_templates, "resource_dir", lambda name: tmp_path / name)
    sql_templates.template.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"names \['a'\], the text \['a', 'b'\]"):
            sql_templates.template("bad")
        with pytest.raises(ValueError, match="must start with `-- template: named`"):
            sql_templates.template("named")
    finally:
        sql_templates.template.cache_clear()
