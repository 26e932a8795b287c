"""Random JSON that fits a JSON schema, for the schemas pydantic writes (objects, $ref/$defs, anyOf,
enum, const, strings with length and pattern, integers and numbers with bounds, arrays with item counts,
booleans, null). hypothesis-jsonschema would be the library for this, but its last release does not
run on the hypothesis pinned here; this covers exactly what our task schemas use, and raises on
anything else so a schema change cannot pass unexercised."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

Json = Any


def from_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> st.SearchStrategy[Json]:
    defs = schema.get("$defs", defs or {})
    if "$ref" in schema:
        return st.deferred(lambda: from_schema(defs[schema["$ref"].split("/")[-1]], defs))
    if "anyOf" in schema:
        return st.one_of([from_schema(s, defs) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v, defs) for k, v in properties.items() if k in required},
            optional={k: from_schema(v, defs) for k, v in properties.items() if k not in required},
        )
    if kind == "array":
        return st.lists(
            from_schema(schema.get("items", {}), defs),
            min_size=schema.get("minItems", 0),
            max_size=schema.get("maxItems", 5),
        )
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: schema.get("minLength", 0) <= len(s) <= schema.get("maxLength", 10**6)
            )
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 80), 80))
    if kind == "integer":
        return st.integers(schema.get("minimum", -(10**6)), schema.get("maximum", 10**6))
    if kind == "number":
        return st.floats(schema.get("minimum", -1e6), schema.get("maximum", 1e6), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise ValueError(f"no strategy for schema {schema}")
