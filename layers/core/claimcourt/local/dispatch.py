"""The one place the local runtime reaches into moto (pinned exactly; tests/integration/test_dispatch.py
guards every seam): Lambda Task states are dispatched in-process to the handlers template.yaml names,
each state machine definition is parsed once per process rather than at its creation and at every
execution, an execution's end is announced to whoever follows it with how it ended (no polling, no
API round trip), a state or a program (the execution's, a Parallel branch's, a Map iteration's)
without a timeout does its work on the thread that evaluates it, the threads moto does start run on a
pool of parked ones (local/threads.py), a Map starts no more workers than it has items, and moto's
Batch integration (which imports moto.ec2, about 1 s) is loaded only if a state machine has a Batch
task.

moto's Step Functions interpreter (moto is pinned exactly) sends every `arn:aws:states:::lambda:invoke`
task through `lambda_eval_utils._invoke_lambda_function`. Replacing that one function, rather than
moto's Lambda backend, skips building a boto3 client per task (30–60 ms each), which would show up
in every stage's latency and de-synchronise parallel branches. Handler errors come back the way
Lambda reports them — FunctionError plus {"errorType", "errorMessage"} — so the ASL's Retry and
Catch see the same error names as in the cloud.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import importlib.util
import json
import marshal
import pickle
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

from claimcourt.local.template import FunctionSpec, Template
from claimcourt.local.threads import POOL, PooledThread, PooledThreading

LambdaHandler = Callable[[dict[str, Any], Any], Any]


@dataclass
class LocalContext:
    """The slice of the Lambda context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    invoked_function_arn: str = ""
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "local"
    log_stream_name: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def load_module(root: Path, spec: FunctionSpec) -> ModuleType:
    """Import functions/<name>/app.py as Lambda would: by file, under a name of its own."""
    module_name, _ = spec.handler.rsplit(".", 1)
    path = root / spec.code_uri / f"{module_name}.py"
    import_spec = importlib.util.spec_from_file_location(f"claimcourt_fn_{spec.logical_id}", path)
    if import_spec is None or import_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(import_spec)
    import_spec.loader.exec_module(module)
    return module


def load_handlers(template: Template) -> dict[str, tuple[FunctionSpec, LambdaHandler]]:
    handlers = {}
    for spec in template.functions.values():
        module = load_module(template.root, spec)
        handlers[spec.name] = (spec, getattr(module, spec.handler.rsplit(".", 1)[1]))
    return handlers


class LambdaDispatcher:
    def __init__(self, handlers: dict[str, tuple[FunctionSpec, LambdaHandler]]) -> None:
        self._handlers = handlers
        self.invocations: list[str] = []

    def invoke(
        self, parameters: dict[str, Any], region: str, state_credentials: Any = None
    ) -> dict[str, Any]:
        """Stands in for moto's `_invoke_lambda_function(parameters, region, state_credentials)`."""
        name, qualifier = function_name_and_qualifier(str(parameters["FunctionName"]))
        if name not in self._handlers:
            return _error("ResourceNotFoundException", f"Function not found: {parameters['FunctionName']}")
        spec, handler = self._handlers[name]
        raw = parameters.get("Payload") or b"{}"
        event = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        self.invocations.append(name)
        # Locally every qualifier (a version the state machine names, an alias) runs the working tree.
        invoked = f"{spec.arn}:{qualifier}" if qualifier else spec.arn
        try:
            result = handler(event, LocalContext(function_name=name, invoked_function_arn=invoked))
        except Exception as exc:  # Lambda reports any uncaught exception as a function error
            return _error(type(exc).__name__, str(exc))
        # A round trip through JSON, as a real invocation's payload makes.
        return {"StatusCode": 200, "Payload": json.loads(json.dumps(result))}

    @contextmanager
    def installed(self) -> Iterator[LambdaDispatcher]:
        defer_batch_integration()  # before the imports below reach moto's task-service factory
        from moto.stepfunctions.parser import models as parser_models
        from moto.stepfunctions.parser.asl.component.common.path import result_path
        from moto.stepfunctions.parser.asl.component.common.string import string_expression
        from moto.stepfunctions.parser.asl.component.program.program import Program
        from moto.stepfunctions.parser.asl.component.state.exec import execute_state
        from moto.stepfunctions.parser.asl.component.state.exec.state_map import state_map
        from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import (
            inline_iteration_component as inline_map,
        )
        from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import job
        from moto.stepfunctions.parser.asl.component.state.exec.state_parallel import (
            branch_worker,
            state_parallel,
        )
        from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils
        from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service
        from moto.stepfunctions.parser.asl.eval import environment, states
        from moto.stepfunctions.parser.asl.utils import json_path
        from moto.stepfunctions.parser.backend import execution_worker
        from moto.stepfunctions.parser.backend.execution import BaseExecutionWorkerCommunication
        from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker
        from moto.stepfunctions.parser.utils import TMP_THREADS

        json_copiers: tuple[ModuleType, ...] = (states, string_expression, result_path, execute_state)
        json_copiers += (state_parallel, state_map, state_task_service)

        def entrypoint(worker: ExecutionWorker) -> Any:  # a plain function, so it binds as a method
            return PARSED.entrypoint(worker)

        reflect_end = BaseExecutionWorkerCommunication.terminated

        def terminated(communication: BaseExecutionWorkerCommunication) -> None:
            try:
                reflect_end(communication)  # moto records the status, output, error
            finally:
                ENDS.ended(communication.execution.exec_arn, described_end(communication.execution))
                forget_finished(TMP_THREADS)

        with (
            mock.patch.object(lambda_eval_utils, "_invoke_lambda_function", self.invoke),
            mock.patch.object(ExecutionWorker, "_get_evaluation_entrypoint", entrypoint),
            # create_state_machine validates by parsing too: the same parse serves the first execution.
            mock.patch.object(parser_models, "AmazonStateLanguageParser", _OneParse),
            mock.patch.object(BaseExecutionWorkerCommunication, "terminated", terminated),
            # moto builds a new PLY parser for every JSONPath at every state (about 0.8 ms each, 70 a
            # run: the largest CPU cost of a local run, so of 20 runs at once on one GIL). A parsed
            # path is only read, never changed, so one per path text serves every execution.
            mock.patch.object(json_path, "parse", _cached(json_path.parse)),  # type: ignore[attr-defined]
            mock.patch.object(result_path, "parse", _cached(result_path.parse)),  # type: ignore[attr-defined]
            # It deep-copies the state's JSON at every read and write, and a state's input and result
            # as it goes in and out: a copier that knows JSON takes a fifth of copy.deepcopy's time
            # (which also tracks shared references JSON cannot have).
            _patched_each(json_copiers, "copy", JsonCopy),
            # and its program state (at every state and frame) and a Map's results, plain objects
            # that copy.deepcopy reconstructs through pickle's protocol.
            mock.patch.object(environment, "copy", JsonCopy),
            mock.patch.object(job, "copy", JsonCopy),
            # A state with no TimeoutSeconds does its work on the thread that evaluates it.
            mock.patch.object(
                execute_state.ExecutionState,
                "_evaluate_with_timeout",
                _untimed_inline(execute_state.ExecutionState._evaluate_with_timeout),
            ),
            mock.patch.object(execute_state, "Thread", StateWorkThread),
            # The same for a program: the execution's own, each Parallel branch's, each Map iteration's.
            mock.patch.object(Program, "eval", _untimed_program(Program.eval)),
            # moto names each Parallel branch's thread after its program, formatted whole (all of its
            # states' components: about 0.2 ms a branch); the class name does.
            mock.patch.object(Program, "__str__", _program_name),
            mock.patch.object(
                inline_map.InlineIterationComponent,
                "_eval_body",
                _workers_for_items(inline_map.InlineIterationComponent._eval_body),
            ),
            # The threads moto still starts (an execution's, each Parallel branch's, each Map
            # worker's) run on parked workers: a thread start after an idle moment costs ~0.3 ms.
            mock.patch.object(execution_worker, "Thread", PooledThread),
            mock.patch.object(branch_worker, "threading", PooledThreading()),
            mock.patch.object(inline_map, "threading", PooledThreading()),
        ):
            yield self


@contextmanager
def _patched_each(modules: tuple[ModuleType, ...], name: str, value: Any) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        for module in modules:
            stack.enter_context(mock.patch.object(module, name, value))
        yield


class ExecutionEnds:
    """Followers of executions, told the moment moto has recorded an execution's end (its worker's
    `terminated`, in the execution's own thread), so that none polls for it; and how each ended."""

    def __init__(self) -> None:
        self._followed: dict[str, threading.Event] = {}
        self._described: dict[str, dict[str, Any]] = {}  # a followed execution's end, as described
        self._lock = threading.Lock()

    def follow(self, execution_arn: str) -> threading.Event:
        """Set once the execution ends from now on: whoever follows checks once whether it already had."""
        with self._lock:
            return self._followed.setdefault(execution_arn, threading.Event())

    def unfollow(self, execution_arn: str) -> None:
        with self._lock:
            self._followed.pop(execution_arn, None)
            self._described.pop(execution_arn, None)

    def ended(self, execution_arn: str, described: dict[str, Any] | None = None) -> None:
        with self._lock:
            event = self._followed.get(execution_arn)
            if event is not None and described is not None:
                self._described[execution_arn] = described
        if event is not None:
            event.set()

    def described(self, execution_arn: str) -> dict[str, Any] | None:
        """A followed execution's end as DescribeExecution gives it, once it has ended; else None."""
        with self._lock:
            return self._described.get(execution_arn)


# moto evaluates every Task, Parallel and Map state's work on a thread of its own, only so that it can
# stop waiting for it after the state's TimeoutSeconds. The debate declares none, and moto's default
# (99,999,999 s) never fires, so a state without one does its work on the thread that evaluates the
# state: some 25 thread starts and hand-offs fewer a run, each a wait for a core on a busy machine.
# A state with a timeout still gets its thread, and its timeout.
_untimed = threading.local()


def _untimed_inline(evaluate: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """Wraps moto's `ExecutionState._evaluate_with_timeout(self, env)`: says whether the state it
    evaluates has a timeout, for the thread it is about to start (StateWorkThread)."""

    def evaluate_with_timeout(state: Any, env: Any) -> None:
        _untimed.state = state.timeout.is_default_value()
        try:
            evaluate(state, env)
        finally:
            _untimed.state = False

    return evaluate_with_timeout


class StateWorkThread(threading.Thread):
    """Stands in for `threading.Thread` in moto's execute_state, whose one use is the thread a
    state's work runs on. For a state with no timeout, `start` runs the work at once on this thread,
    in a fresh context as a new thread would have (the logger's per-thread keys do not carry over)."""

    def start(self) -> None:
        if not getattr(_untimed, "state", False):
            super().start()
            return
        _untimed.state = False  # for this state only: states its work evaluates decide for themselves
        contextvars.Context().run(self.run)


def _untimed_program(evaluate: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """Wraps moto's `Program.eval(self, env)`, which evaluates a program's states on a thread of its
    own and waits for it, only to stop waiting after the program's TimeoutSeconds. A program without
    one is evaluated on the calling thread, in a fresh context as on a new thread; one with a timeout,
    as moto does. (What moto's thread runs: the first state's name, then the states in turn. A branch
    stopped before it began, its sibling having failed, gets no first state: moto's setter refuses it
    on the branch's thread, where nothing would catch it, and the loop then runs no state.)"""

    from moto.stepfunctions.parser.asl.component.eval_component import EvalComponent

    def evaluate_program(program: Any, env: Any) -> None:
        if program.timeout_seconds is not None:
            evaluate(program, env)
            return
        with contextlib.suppress(RuntimeError):  # refused only to a program stopped, or ended, already
            env.next_state_name = program.start_at.start_at_name
        contextvars.Context().run(EvalComponent.eval, program, env)

    return evaluate_program


def _program_name(program: Any) -> str:
    return f"({type(program).__name__})"


def _workers_for_items(eval_body: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """Wraps moto's `InlineIterationComponent._eval_body(self, env)`, a Map state's iterations. moto
    starts MaxConcurrency worker threads however few the items are (the Retrieve map 8 for one or
    two directives, the Judge map 4 for one or two samples), and those beyond the items find no job
    and end. No more are started than there are items: the same items run at once, as before."""

    def evaluate(component: Any, env: Any) -> None:
        iterations = env.stack[-1]  # the component's input, which it pops
        if iterations.max_concurrency > len(iterations.input_items):
            iterations.max_concurrency = len(iterations.input_items)  # 0 (no items): as many as items
        eval_body(component, env)

    return evaluate


def described_end(execution: Any) -> dict[str, Any] | None:
    """What DescribeExecution answers for an execution whose end moto has recorded, read from moto's
    record itself: a follower needs no API round trip through boto3 and moto's stub (about 1.5 ms of
    CPU, twice at every run's end). None if no end was recorded."""
    status = getattr(execution.exec_status, "value", "RUNNING")
    if status == "RUNNING":
        return None
    return {**execution.to_describe_output(), "status": status}


def forget_finished(threads: list[threading.Thread]) -> None:
    """moto appends every thread it starts to a module-level list (TMP_THREADS, about 30 a run) that
    nothing reads or empties, so a long `serve` would keep them all, and its full collections would
    walk them. At each execution's end, those that have finished are dropped. (An append racing with
    this may be dropped too: nothing reads the list.)"""
    threads[:] = [thread for thread in threads if thread.is_alive()]


class JsonCopy:
    """Stands in for the `copy` module where moto copies state data (JSON values), its program states
    and a Map's closed jobs (plain objects: attributes only, no copy hooks, no slots)."""

    @staticmethod
    def deepcopy(value: Any) -> Any:
        # JSON values in C, twice as fast: marshal takes exact builtin types only (and would turn a
        # bytearray into bytes: JSON state data holds none).
        try:
            return marshal.loads(marshal.dumps(value))
        except ValueError:  # anything else (a moto object, an Enum or other subclass): attribute by attribute
            return JsonCopy._copy(value)

    @staticmethod
    def _copy(value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            return {k: JsonCopy._copy(v) for k, v in value.items()}
        if kind is list:
            return [JsonCopy._copy(v) for v in value]
        if kind in (str, int, float, bool) or value is None:
            return value
        if kind is set:
            return {JsonCopy._copy(v) for v in value}
        if kind in _plain_classes():
            copied = object.__new__(kind)
            copied.__dict__.update(JsonCopy._copy(value.__dict__))
            return copied
        return copy.deepcopy(value)  # anything else, as moto would


@functools.cache
def _plain_classes() -> frozenset[type]:
    """moto's classes that JsonCopy copies attribute by attribute (test_dispatch checks that each is
    still plain: no __deepcopy__, __reduce__ or __slots__ of its own)."""
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration.job import JobClosed
    from moto.stepfunctions.parser.asl.eval import program_state

    return frozenset(
        {
            JobClosed,
            program_state.ProgramRunning,
            program_state.ProgramEnded,
            program_state.ProgramStopped,
            program_state.ProgramError,
            program_state.ProgramTimedOut,
        }
    )


@functools.cache  # one cache per parser for the process, shared by every runtime in it
def _cached(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    return functools.lru_cache(maxsize=1024)(parse)


# How long after an execution starts the next one's copy of its tree is made: an execution reaches its
# first model call within a few milliseconds, and waits on it far longer than this.
SPARE_AFTER_S = 0.02


class ParsedDefinitions:
    """moto parses the ASL with ANTLR at every execution start (80–150 ms here: the largest single
    overhead of a local run). Parse each definition once, keep it pickled, and give every execution
    its own unpickled copy: the component tree holds per-execution state, so executions must never
    share one. Unpickling takes ~1.5 ms, so the next execution's copy is made ready beforehand, a
    moment after this one starts (SPARE_AFTER_S): by then the execution is waiting on its first model
    call, and the copy costs its critical path nothing."""

    def __init__(self) -> None:
        self._pickled: dict[str, bytes] = {}
        self._spares: dict[str, Any] = {}  # a ready copy per definition, for the next execution
        self._making: set[str] = set()  # definitions whose next copy is being made
        self._lock = threading.Lock()

        self.parses = 0  # ANTLR parses done, for the tests
        self.spares_used = 0  # executions that started on a ready copy, for the tests

    def program(self, definition: str) -> Any:
        """An evaluation tree of its own for one execution of `definition`. A definition that does not
        parse raises moto's own ASLParserException, as moto's parser would."""
        from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser

        with self._lock:
            blob = self._pickled.get(definition)
            spare = self._spares.pop(definition, None)
        if blob is None:
            self.parses += 1
            program = AmazonStateLanguageParser.parse(definition)[0]
            try:
                blob = pickle.dumps(program)
            except (pickle.PicklingError, TypeError, AttributeError):
                return program  # not cacheable: behave exactly as moto does
            with self._lock:
                self._pickled[definition] = blob
            spare = program  # the fresh tree is this caller's own: no need to unpickle a copy
        elif spare is None:
            spare = pickle.loads(blob)
        else:
            self.spares_used += 1
        with self._lock:  # one copy in the making at a time: a burst of starts unpickles its own
            make = definition not in self._making
            self._making.add(definition)
        if make:
            POOL.run(functools.partial(self._make_spare, definition, blob))
        return spare

    def _make_spare(self, definition: str, blob: bytes) -> None:
        time.sleep(SPARE_AFTER_S)
        program = pickle.loads(blob)
        with self._lock:
            self._spares[definition] = program
            self._making.discard(definition)

    def entrypoint(self, worker: Any) -> Any:
        """Stands in for moto's `ExecutionWorker._get_evaluation_entrypoint(self)`."""
        return self.program(worker._evaluation_details.state_machine_details.definition)


class _OneParse:
    """Stands in for `AmazonStateLanguageParser` where moto validates a definition at creation: the
    parse is kept for the executions. Its caller reads only whether it raised (moto's own
    exceptions, translated by moto as before); the parse tree it would also return is not kept."""

    @staticmethod
    def parse(definition: str) -> tuple[Any, None]:
        return PARSED.program(definition), None


# moto's task-service factory imports every service integration at module level, and its Batch one
# imports moto.batch, whose package imports moto.ec2: about 1 s, more than the rest of a local run's
# start-up. The debate has no Batch task. Until one asks for it, that module is this stand-in, whose
# service class is a function loading the real module when first called.
BATCH_INTEGRATION = (
    "moto.stepfunctions.parser.asl.component.state.exec.state_task.service.state_task_service_batch"
)


class _DeferredModule(ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name, "Stands in for a moto module until it is used (claimcourt.local.dispatch).")
        self._load_lock = threading.Lock()

    def load(self) -> ModuleType:
        with self._load_lock:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            return importlib.import_module(self.__name__)

    def __getattr__(self, name: str) -> Any:  # any other name: the real module's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.load(), name)


def defer_batch_integration() -> None:
    """Put the stand-in in place, unless the real module (or the stand-in) is already loaded."""
    if BATCH_INTEGRATION in sys.modules:
        return
    stand_in = _DeferredModule(BATCH_INTEGRATION)

    def service(*args: Any, **kwargs: Any) -> Any:
        return stand_in.load().StateTaskServiceBatch(*args, **kwargs)

    stand_in.StateTaskServiceBatch = service  # type: ignore[attr-defined]
    sys.modules[BATCH_INTEGRATION] = stand_in


def function_name_and_qualifier(identifier: str) -> tuple[str, str | None]:
    """The function and its qualifier (a version or alias; None for none) from any form Lambda's
    Invoke takes as FunctionName: a name, a partial ARN (ACCOUNT:function:NAME) or a full ARN, each
    with an optional :QUALIFIER. The state machines name versions (arn:…:function:NAME:VERSION)."""
    parts = identifier.split(":")
    if parts[0] == "arn":  # arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]
        parts = parts[6:]
    elif len(parts) > 2 and parts[1] == "function":  # ACCOUNT:function:NAME[:QUALIFIER]
        parts = parts[2:]
    return parts[0], (parts[1] if len(parts) > 1 else None)


def _error(error_type: str, message: str) -> dict[str, Any]:
    return {
        "StatusCode": 200,
        "FunctionError": "Unhandled",
        "Payload": {"errorType": error_type, "errorMessage": message},
    }


# Process-wide: keyed by the definition's text, so runtimes in one process share the parse.
PARSED = ParsedDefinitions()
ENDS = ExecutionEnds()
