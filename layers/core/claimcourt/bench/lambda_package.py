"""What Lambda would load: the layer built as `sam build` builds it, its size, and each handler's
cold import time.

    python -m claimcourt.bench.lambda_package [--repeat 5]

1. The layer for the template's runtime and architecture (Globals.Function in template.yaml):
   `pip install --platform manylinux… --python-version 3.12 --only-binary=:all:` of
   layers/core/requirements.txt into python/, plus the claimcourt package, as SAM's python
   BuildMethod lays it out. Printed: unzipped size of the layer and of each function (Lambda's
   limit for a function plus its layers is 250 MB unzipped).
2. Cold imports: that layer's compiled wheels are for the Lambda interpreter, not necessarily this
   one, so the same requirements are installed again for this interpreter. Each handler is then
   imported in a fresh `python -I -S` process whose sys.path is only [the layer, the function's
   directory], as in a Lambda sandbox (boto3 aside, which the runtime provides and no stage imports
   at import time). Printed: median and worst of --repeat cold imports per handler (goal < 300 ms).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from claimcourt.local.template import CfnLoader, project_root

LIMIT_MB = 250
GOAL_MS = 300
# The Python 3.12+ runtimes run on Amazon Linux 2023 (glibc 2.34): manylinux_2_28 wheels load there, and
# some packages (numpy 2.4) publish no manylinux2014 ones any more.
PLATFORMS = {
    "x86_64": ("manylinux2014_x86_64", "manylinux_2_28_x86_64"),
    "arm64": ("manylinux2014_aarch64", "manylinux_2_28_aarch64"),
}
IMPORT_PROBE = """
import sys, time
sys.path[:0] = [{layer!r}, {function!r}]
started = time.perf_counter()
import app
app.handler
print(round((time.perf_counter() - started) * 1000, 1))
"""


def _size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1_000_000


def _pip_install(
    target: Path, requirements: Path, python_version: str | None, platforms: tuple[str, ...] | None
) -> None:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target)]
    if python_version and platforms:
        command += ["--only-binary=:all:", "--implementation", "cp", "--python-version", python_version]
        for platform in platforms:
            command += ["--platform", platform]
    subprocess.run([*command, "-r", str(requirements)], check=True)


def _pip_install_packages(target: Path, packages: list[str]) -> None:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--upgrade"]
    command += ["--target", str(target)]
    subprocess.run([*command, *packages], check=True)


def build_layer(root: Path, out: Path, python_version: str | None, platform: tuple[str, ...] | None) -> Path:
    """layers/core laid out as SAM does: dependencies and the package side by side in python/."""
    site = out / "python"
    _pip_install(site, root / "layers/core/requirements.txt", python_version, platform)
    shutil.copytree(
        root / "layers/core/claimcourt", site / "claimcourt", ignore=shutil.ignore_patterns("__pycache__")
    )
    return site


def cold_import_ms(site: Path, function_dir: Path) -> float:
    probe = IMPORT_PROBE.format(layer=str(site), function=str(function_dir))
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{function_dir.name}: import failed in a bare interpreter:\n{done.stderr[-2000:]}"
        )
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="cold imports per handler")
    args = parser.parse_args(argv)

    import yaml

    root = project_root()
    template = yaml.load((root / "template.yaml").read_text(), Loader=CfnLoader)  # a safe loader
    function_globals = template["Globals"]["Function"]
    runtime = str(function_globals["Runtime"])  # e.g. python3.12
    architecture = str(function_globals.get("Architectures", ["x86_64"])[0])
    lambda_python = runtime.removeprefix("python")
    functions = {
        logical: root / resource["Properties"]["CodeUri"]
        for logical, resource in template["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }

    with tempfile.TemporaryDirectory(prefix="claimcourt-layer-") as tmp:
        print(f"building the layer for {runtime} on {architecture} ({', '.join(PLATFORMS[architecture])}) …")
        layer = build_layer(root, Path(tmp) / "lambda", lambda_python, PLATFORMS[architecture])
        layer_mb = _size_mb(layer)
        print(f"layer unzipped: {layer_mb:.1f} MB")
        biggest = sorted(((_size_mb(p), p.name) for p in layer.iterdir()), reverse=True)[:6]
        print("  largest parts: " + ", ".join(f"{name} {mb:.1f} MB" for mb, name in biggest))
        worst_total = max(layer_mb + _size_mb(d) for d in functions.values())
        print(f"largest function + layer: {worst_total:.1f} MB of Lambda's {LIMIT_MB} MB")

        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        print(
            f"\ncold imports: the same layer built for this interpreter (Python {here}), bare `python -I -S`"
        )
        local = build_layer(root, Path(tmp) / "local", None, None)
        # The Lambda runtime provides boto3; the bare interpreter gets it too, for a fair comparison.
        _pip_install_packages(local, [f"boto3=={version('boto3')}"])
        print(f"{'function':<22} {'median ms':>9} {'worst ms':>9}")
        medians = []
        for logical, function_dir in functions.items():
            times = [cold_import_ms(local, function_dir) for _ in range(args.repeat)]
            medians.append(statistics.median(times))
            flag = "" if max(times) < GOAL_MS else "  over the goal"
            print(f"{logical:<22} {statistics.median(times):>9.0f} {max(times):>9.0f}{flag}")
        print(f"slowest median {max(medians):.0f} ms (goal < {GOAL_MS} ms)")


if __name__ == "__main__":
    main()
