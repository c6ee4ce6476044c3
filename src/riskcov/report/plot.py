"""RC and generalized-risk curves drawn with matplotlib (the optional `plot` extra) as PNG or SVG."""

from __future__ import annotations

import io
from pathlib import Path
from types import ModuleType
from typing import Any

from riskcov.errors import MissingExtraError, UsageError
from riskcov.report.curves import Line, merge_identical
from riskcov.warehouse.files import write_output

FORMATS = (".png", ".svg")
PANELS = (("selective_risk", "selective risk"), ("generalized_risk", "generalized risk"))


def require_matplotlib() -> ModuleType:
    """The matplotlib package, or the one-line error naming the extra that installs it."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("riskcov plot needs matplotlib: pip install 'riskcov[plot]'") from None
    return matplotlib


def check_output(path: Path) -> str:
    """The image format of `path` from its suffix ('png' or 'svg').

    >>> check_output(Path("rc.SVG"))
    'svg'
    """
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise UsageError(f"--output {path}: give a .png or .svg file name")
    return suffix[1:]


def render(lines: list[Line], path: Path, title: str) -> None:
    """Two panels (selective and generalized risk vs coverage), a line per curve (identical
    curves once), Cmax marked by a dotted vertical line, bootstrap bands shaded; SVG output is
    byte-reproducible."""
    fmt = check_output(path)
    matplotlib = require_matplotlib()
    # a fixed hash salt and no date make the SVG's ids and metadata identical run to run
    with matplotlib.rc_context({"svg.hashsalt": "riskcov", "svg.fonttype": "none"}):
        fig = draw(lines, title)
        metadata: dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": None}
        picture = io.BytesIO()
        fig.savefig(picture, format=fmt, metadata=metadata, dpi=120)
        write_output(path, picture.getvalue(), "the picture")


def draw(lines: list[Line], title: str) -> Any:
    """The two panels of `render` as a matplotlib Figure (shown by a notebook cell)."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lines = merge_identical(lines)
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    for ax, (key, name) in zip(axes, PANELS, strict=True):
        _panel(ax, lines, key, name)
    axes[0].legend(loc="best", fontsize="small")
    fig.suptitle(title)
    return fig


def _panel(ax: Any, lines: list[Line], key: str, name: str) -> None:
    for k, line in enumerate(lines):
        color = f"C{k % 10}"
        if line.band is not None:
            b = line.band
            kept = [i for i, lo in enumerate(b.low[key]) if lo is not None]
            ax.fill_between(
                [b.coverage[i] for i in kept],
                [b.low[key][i] for i in kept],
                [b.high[key][i] for i in kept],
                step="pre",  # right-continuous step: the value at c holds on (previous c, c]
                color=color,
                alpha=0.2,
                linewidth=0,
            )
        style = ("-", "--", "-.", ":")[(k // 10) % 4]  # colours repeat after ten lines
        ax.plot(
            line.coverage,
            getattr(line, key),
            color=color,
            linestyle=style,
            marker=".",
            label=f"{line.label} (Cmax {line.cmax:.3f})",
        )
        ax.axvline(line.cmax, color=color, linestyle=":", linewidth=1)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel("coverage")
    ax.set_ylabel(name)
    ax.set_title(f"{name} vs coverage")
    ax.grid(True, alpha=0.3)


def plot_artifact(artifact_path: Path, output: Path) -> list[Line]:
    """`riskcov plot --from-artifact A.json`: the artifact's curves, drawn."""
    from riskcov.report.curves import lines_from_artifact
    from riskcov.report.report_data import load_artifact

    check_output(output)
    require_matplotlib()
    art = load_artifact(artifact_path)
    lines = lines_from_artifact(art)
    render(lines, output, f"{artifact_path.name} ({art.get('estimator', '')})")
    return lines
