"""Read what the local runtime needs from template.yaml: the functions (CodeUri + Handler) and the
state machines (DefinitionUri + DefinitionSubstitutions). The template is the single source."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

ACCOUNT, REGION = "123456789012", "us-east-1"

# libyaml's parser when PyYAML was built with it (its wheels are): template.yaml in 6 ms, not 60.
_SafeLoader: type[SafeConstructor] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CfnLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """Reads CloudFormation short-form intrinsics (!Ref, !GetAtt, !Sub, …) as {"Fn": value}."""


def _intrinsic(loader: SafeConstructor, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    name = "Ref" if tag_suffix == "Ref" else f"Fn::{tag_suffix}"
    if name == "Fn::GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {name: value}


CfnLoader.add_multi_constructor("!", _intrinsic)


@dataclass(frozen=True)
class FunctionSpec:
    logical_id: str
    code_uri: Path
    handler: str  # module.attribute
    alias: str | None = None  # AutoPublishAlias: the function publishes a version on each deploy

    @property
    def name(self) -> str:
        return f"claimcourt-{self.logical_id}"

    @property
    def arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.name}"

    def qualified_arn(self, attribute: str) -> str:
        """What SAM's `!Ref <Function>.Version` / `.Alias` resolve to: the ARN with a qualifier. Locally
        nothing is published and the working tree is the one version, so `.Version` names $LATEST."""
        if self.alias is None:
            raise ValueError(f"{self.logical_id}.{attribute}: the function has no AutoPublishAlias")
        return f"{self.arn}:{'$LATEST' if attribute == 'Version' else self.alias}"


@dataclass(frozen=True)
class StateMachineSpec:
    logical_id: str
    definition_uri: Path
    substitutions: dict[str, Any]


@dataclass(frozen=True)
class Template:
    root: Path
    functions: dict[str, FunctionSpec]
    state_machines: dict[str, StateMachineSpec]
    parameters: dict[str, Any]
    resources: dict[str, Any]  # every resource as written, for the parts built in moto (the bus)

    def render(self, logical_id: str) -> str:
        """The state machine's ASL with every ${Placeholder} filled as CloudFormation would."""
        spec = self.state_machines[logical_id]
        text = (self.root / spec.definition_uri).read_text()
        values = {key: self._resolve(value) for key, value in spec.substitutions.items()}

        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in values:
                raise KeyError(f"{spec.definition_uri}: no DefinitionSubstitution for ${{{key}}}")
            return str(values[key])

        return re.sub(r"\$\{([A-Za-z0-9_]+)\}", fill, text)

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, dict) and "Fn::GetAtt" in value:
            logical, attribute = value["Fn::GetAtt"]
            if attribute == "Arn" and logical in self.functions:
                return self.functions[logical].arn
        if isinstance(value, dict) and "Ref" in value:
            ref = value["Ref"]
            if ref in self.functions:
                return self.functions[ref].name
            logical, _, attribute = ref.partition(".")
            if logical in self.functions and attribute in ("Version", "Alias"):
                return self.functions[logical].qualified_arn(attribute)
            if ref in self.parameters:
                return self.parameters[ref]
        if isinstance(value, str | int | float):
            return value
        raise ValueError(f"the local runtime cannot resolve substitution {value!r}")


def load_template(root: Path) -> Template:
    doc = yaml.load((root / "template.yaml").read_text(), Loader=CfnLoader)
    function_globals = doc.get("Globals", {}).get("Function", {})
    handler_default = function_globals.get("Handler")
    functions: dict[str, FunctionSpec] = {}
    machines: dict[str, StateMachineSpec] = {}
    for logical, resource in doc["Resources"].items():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            functions[logical] = FunctionSpec(
                logical,
                Path(props["CodeUri"]),
                props.get("Handler", handler_default),
                props.get("AutoPublishAlias", function_globals.get("AutoPublishAlias")),
            )
        elif resource["Type"] == "AWS::Serverless::StateMachine":
            machines[logical] = StateMachineSpec(
                logical, Path(props["DefinitionUri"]), dict(props.get("DefinitionSubstitutions", {}))
            )
    parameters = {name: p.get("Default") for name, p in doc.get("Parameters", {}).items()}
    return Template(root, functions, machines, parameters, doc["Resources"])


def project_root() -> Path:
    """The checkout this package runs from (it is installed editable from layers/core)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "template.yaml").is_file() and (parent / "statemachine").is_dir():
            return parent
    raise FileNotFoundError("template.yaml not found above the claimcourt package: run from a clone")


def main(argv: list[str] | None = None) -> None:
    """`python -m claimcourt.local.template OUT_DIR`: write each state machine's rendered ASL there
    (what CloudFormation hands Step Functions), for linting."""
    import sys

    out = Path((argv or sys.argv[1:])[0])
    template = load_template(project_root())
    for logical_id in template.state_machines:
        (out / f"{logical_id}.asl.json").write_text(template.render(logical_id))


if __name__ == "__main__":
    main()
