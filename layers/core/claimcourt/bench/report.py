"""The scorecard's plots (PNG, matplotlib) and its static HTML report.

Plots: the calibration set's calibration curve (mean score against anchor, σ as error bars, one series per
system); a reliability diagram for the benches with true/false gold labels (score decile against the share
true); a confusion matrix per system for the labelled benches. report.html shows every section's table,
notes and plots, and `<out>/index.html` lists every run directory beside it, newest first. matplotlib is
a laptop extra (claimcourt[local]); never in the Lambda layer.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from claimcourt.bench.harness import METER_MODEL, SYSTEM_NAMES

COLOURS = {"judge": "#d95f02", "rag": "#7570b3", "debate": "#1b9e77"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def calibration_curve(curve: dict[str, list[list[float]]], path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 100], [0, 100], color="#999999", linestyle="--", linewidth=1, label="perfect")
    for system, points in curve.items():
        xs, ys, sds = zip(*points, strict=True) if points else ((), (), ())
        ax.errorbar(
            xs, ys, yerr=sds, fmt="o", capsize=3, color=COLOURS.get(system), label=SYSTEM_NAMES[system]
        )
    ax.set(xlim=(0, 100), ylim=(0, 100), xlabel="hand-set anchor", ylabel="mean score (± σ over runs)")
    ax.set_title("calibration curve: score against anchor")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def reliability_diagram(bins: dict[str, list[dict[str, float]]], title: str, path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1, label="perfect")
    for system, points in bins.items():
        xs = [p["predicted"] for p in points]
        ys = [p["observed"] for p in points]
        sizes = [20 + 12 * p["n"] for p in points]
        ax.plot(xs, ys, color=COLOURS.get(system), linewidth=1)
        ax.scatter(xs, ys, s=sizes, color=COLOURS.get(system), alpha=0.7, label=SYSTEM_NAMES[system])
    ax.set(xlim=(0, 1), ylim=(-0.02, 1.02), xlabel="score / 100 (decile mean)", ylabel="share true")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def confusion_matrices(
    labels: list[str], matrices: dict[str, list[list[int]]], title: str, path: Path
) -> Path:
    plt = _pyplot()
    systems = list(matrices)
    fig, axes = plt.subplots(1, len(systems), figsize=(3.6 * len(systems) + 0.6, 3.8), squeeze=False)
    for ax, system in zip(axes[0], systems, strict=True):
        matrix = matrices[system]
        ax.imshow(matrix, cmap="Blues")
        top = max((v for row in matrix for v in row), default=0)
        for i, row in enumerate(matrix):
            for j, v in enumerate(row):
                ax.text(j, i, str(v), ha="center", va="center", color="white" if v > top / 2 else "black")
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_xlabel("predicted")
        ax.set_ylabel("gold")
        ax.set_title(SYSTEM_NAMES[system], fontsize=10)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plots(directory: Path, section: dict[str, Any]) -> list[Path]:
    bench, drawn = section["bench"], section["plots"]
    made = []
    if drawn.get("calibration_curve"):
        made.append(
            calibration_curve(drawn["calibration_curve"], directory / f"{bench}-calibration-curve.png")
        )
    if drawn.get("reliability"):
        made.append(
            reliability_diagram(
                drawn["reliability"], f"{bench}: reliability", directory / f"{bench}-reliability.png"
            )
        )
    if drawn.get("confusion"):
        made.append(
            confusion_matrices(
                drawn["confusion"]["labels"],
                drawn["confusion"]["matrices"],
                f"{bench}: confusion (rows gold, columns predicted)",
                directory / f"{bench}-confusion.png",
            )
        )
    return made


def _cell(value: float | None, label: str) -> str:
    if value is None:
        return "—"
    if label.startswith(("tokens",)):
        return f"{value:,.0f}"
    if label.startswith("$"):
        return f"{value:.4f}"
    if "share" in label:
        return f"{value:.0%}"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def html_report(directory: Path, document: dict[str, Any], images: dict[str, list[Path]]) -> str:
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>claimcourt scorecard</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;"
        "text-align:right}td:first-child,th:first-child{text-align:left}.note{color:#555}"
        ".offline{background:#fff3cd;padding:.6em;border:1px solid #e0c36a}img{max-width:100%}</style>",
        "</head><body><h1>claimcourt scorecard</h1>",
    ]
    if document["offline"]:
        parts.append(
            "<p class='offline'>These are the <b>offline reasoner's</b> figures: no language model was used. "
            "Calls and tokens are its prompts and replies; its dollars are <b>metered as if billed at "
            f"{METER_MODEL} prices</b>, and <b>$0 was spent</b>. "
            "Run the same command with a provider key for a model's figures.</p>"
        )
    options = document["options"]
    parts.append(
        f"<p>reasoner: {e(document['reasoner'])}<br>options: {e(str(options))}<br>wall time "
        f"{document['wall_s']} s · directory {e(directory.name)}</p>"
    )
    for section in document["sections"]:
        systems = section["systems"]
        parts.append(f"<h2>{e(section['title'])}</h2><table><tr><th></th>")
        parts += [f"<th>{e(SYSTEM_NAMES[s])}</th>" for s in systems]
        parts.append("</tr>")
        for label, values in section["metrics"].items():
            parts.append(f"<tr><td>{e(label)}</td>")
            parts += [f"<td>{_cell(values.get(s), label)}</td>" for s in systems]
            parts.append("</tr>")
        parts.append("</table>")
        parts += [f"<p class='note'>{e(note)}</p>" for note in section["notes"]]
        for image in images.get(section["bench"], []):
            parts.append(f"<img src='{e(image.name)}' alt='{e(image.stem)}'>")
        for table in section["tables"]:
            parts.append(f"<h3>{e(table['title'])}</h3><table><tr>")
            parts += [f"<th>{e(h)}</th>" for h in table["header"]]
            parts.append("</tr>")
            for row in table["rows"]:
                parts.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_index(out: Path) -> Path:
    """`<out>/index.html`: every run directory with a report, newest first."""
    runs = sorted(
        (p for p in out.iterdir() if (p / "report.html").exists()),
        key=lambda p: p.name.rsplit("-", 1)[-1],
        reverse=True,
    )
    items = "".join(
        f"<li><a href='{html.escape(p.name)}/report.html'>{html.escape(p.name)}</a></li>" for p in runs
    )
    path = out / "index.html"
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>claimcourt bench runs</title></head>"
        f"<body><h1>claimcourt bench runs</h1><ul>{items}</ul></body></html>\n",
        encoding="utf-8",
    )
    return path


def write_report(directory: Path, document: dict[str, Any]) -> dict[str, list[Path]]:
    """The plots, report.html and the index beside it; returns the plots by bench."""
    images = {section["bench"]: plots(directory, section) for section in document["sections"]}
    report = directory / "report.html"
    report.write_text(html_report(directory, document, images), encoding="utf-8")
    write_index(directory.parent)
    return images
