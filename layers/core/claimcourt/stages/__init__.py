"""The debate's stages, one module each, named as its function folder (`functions/<name>`), its ASL
state and its `Stage`. Each holds its payload (what the state machine passes it, kept small) and
`run(deps, payload) -> summary`: load what the stage needs from the store, call the pure stage
function (debate/, adjudication/, evidence/), save the artifact it makes, return a small summary.

The state machine (statemachine/debate.asl.json) decides what runs when; nothing here loops over
stages. A handler imports only its own stage's module.
"""
