"""A stage is one name: its ASL Task state, its function in template.yaml, its folder under
functions/, its handler, its module under claimcourt/stages and its `Stage` are the same word. And
the package's modules import only downwards, in a fixed layer order."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from claimcourt.local.dispatch import load_module
from claimcourt.local.template import load_template, project_root
from claimcourt.models import Stage

ROOT = project_root()
TEMPLATE = load_template(ROOT)
PACKAGE = ROOT / "layers/core/claimcourt"


def _tasks(states: dict[str, Any]) -> list[tuple[str, str]]:
    """(state name, the ${…FunctionArn} placeholder it invokes) for every Task state, nested too."""
    found = []
    for name, state in states.items():
        if state["Type"] == "Task":
            found.append((name, state["Parameters"]["FunctionName"]))
        for branch in state.get("Branches", []):
            found += _tasks(branch["States"])
        if "ItemProcessor" in state:
            found += _tasks(state["ItemProcessor"]["States"])
    return found


# Every Task state of both state machines (the claim debate's and the motion debate's), with its machine.
TASKS = [
    (machine, state, placeholder)
    for machine, spec in TEMPLATE.state_machines.items()
    for state, placeholder in _tasks(json.loads((ROOT / spec.definition_uri).read_text())["States"])
]


@pytest.mark.parametrize(("machine", "state", "placeholder"), TASKS)
def test_every_task_state_reaches_the_stage_of_its_own_name(
    machine: str, state: str, placeholder: str
) -> None:
    # The state's placeholder names a function of the template …
    substitution = TEMPLATE.state_machines[machine].substitutions[
        placeholder.removeprefix("${").removesuffix("}")
    ]
    [logical_id] = [k for k in TEMPLATE.functions if substitution == {"Ref": f"{k}.Version"}]
    spec = TEMPLATE.functions[logical_id]
    # … whose folder is a stage's name, and the state is named for that stage
    folder = spec.code_uri.name
    stage = Stage(folder)
    assert logical_id == f"{folder.capitalize()}Function"
    assert state.startswith(folder.capitalize()), f"{state} runs functions/{folder}"
    # … whose handler serves that stage, through the stage's own module
    handler = getattr(load_module(ROOT, spec), spec.handler.rsplit(".", 1)[1])
    assert handler.stage is stage
    module = importlib.import_module(f"claimcourt.stages.{folder}")
    assert module.STAGE is stage


def test_every_stage_has_a_task_state_a_folder_and_a_module() -> None:
    invoked = {TEMPLATE.functions[k].code_uri.name for k in TEMPLATE.functions} & {s.value for s in Stage}
    assert invoked == {s.value for s in Stage}
    # payloads and motions: what the stages share (a payload's base, a motion's line-up)
    modules = {p.stem for p in (PACKAGE / "stages").glob("*.py")} - {"__init__", "payloads", "motions"}
    assert modules == {s.value for s in Stage}
    states = {name for _, name, _ in TASKS}
    assert all(any(name.startswith(s.value.capitalize()) for name in states) for s in Stage)


# The package's layers, lowest first: a module may import its own layer and those below, never above.
LAYERS: list[set[str]] = [
    {"contract", "errors"},
    {"models", "benchmarks", "settings", "prompts", "aws", "observability"},
    {"reasoning", "evidence", "store", "access", "execution", "bus", "delivery", "preferences"},
    {"debate", "adjudication", "motions"},
    {"artifacts", "wiring"},
    {"runs", "stages", "watching", "exports", "motion_artifacts", "claimreview", "indexing", "rejudge"},
    {"handler", "api"},
    {"local", "bench"},
    {"cli"},  # the command line: above the runtime and the benchmarks, which never import it
]


def _layer_of(module: str) -> int:
    if module == LAUNCHER:  # it starts the command line: above it (and nothing imports it, below)
        return len(LAYERS)
    top = module.split(".")[1] if module.count(".") else ""
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise AssertionError(f"claimcourt.{top} is in no layer: add it to LAYERS")


def _is_module(name: str) -> bool:
    return (PACKAGE / f"{name}.py").exists() or (PACKAGE / name).is_dir()


def _imports(path: Path) -> set[str]:
    """The claimcourt modules a file imports, at any depth (lazy imports count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "claimcourt":  # `from claimcourt import artifacts`: the modules only
                found |= {f"claimcourt.{a.name}" for a in node.names if _is_module(a.name)}
            elif node.module.startswith("claimcourt."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("claimcourt.")}
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_nothing_from_a_layer_above_its_own(path: Path) -> None:
    module = "claimcourt." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    rank = _layer_of(module)
    above = sorted(m for m in _imports(path) if _layer_of(m) > rank)
    assert above == [], f"{module} (layer {rank}) imports from above: {above}"


# ---------------------------------------------------------------- no import circle through the command line

# The console script (pyproject: claimcourt = "claimcourt.local.console:main") is a launcher: it pauses
# the collector, then starts the command line. It is the root of the graph: nothing imports it.
LAUNCHER = "claimcourt.local.console"
COMMAND_LINE = "claimcourt.cli"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolved(name: str) -> str:
    """The module a dotted name lives in: itself, or the nearest package or module above it."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _import_graph() -> dict[str, set[str]]:
    """Every module → the modules it imports, lazily too (`from claimcourt.local import threads` is
    the module threads, `from claimcourt.cli.commands import main` the module commands)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("claimcourt")
            ):
                found |= {_resolved(f"{node.module}.{a.name}") for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {_resolved(a.name) for a in node.names if a.name.startswith("claimcourt")}
        graph[module] = found - {module}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The graph's import circles: its strongly connected components of more than one module."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[set[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for imported in graph[module]:
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:  # the root of a component: it is on the stack above it
            circle = set()
            while module not in circle:
                member = stack.pop()
                on_stack.discard(member)
                circle.add(member)
            if len(circle) > 1:
                circles.append(circle)

    for module in graph:
        if module not in order:
            visit(module)
    return circles


def test_the_command_line_sits_above_local_and_bench_and_no_import_circle_runs_through_it() -> None:
    graph = _import_graph()
    command_line = {m for m in graph if m == COMMAND_LINE or m.startswith(COMMAND_LINE + ".")}
    commands = {
        m for m, path in MODULES.items() if re.search(r"^(import|from) click\b", path.read_text(), re.M)
    }
    assert command_line and commands <= command_line, f"click commands outside {COMMAND_LINE}: {commands}"
    # nothing imports the command line but the launcher, and nothing imports the launcher
    assert {m for m, found in graph.items() if found & command_line} - command_line == {LAUNCHER}
    assert [m for m, found in graph.items() if LAUNCHER in found] == []
    circles = _circles(graph)
    assert [c for c in circles if c & (command_line | {LAUNCHER})] == []
    # and local and bench (the runtime, the benchmarks) no longer share one
    shared = [c for c in circles if {m.split(".")[1] for m in c} >= {"local", "bench"}]
    assert shared == [], shared
