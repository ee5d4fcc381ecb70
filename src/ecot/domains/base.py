"""The backend contract: run(task, candidate) -> Outcome, on a real toolchain; `run` validates the task's
options once and hands the typed model down: evaluate(task, options, candidate)."""

from __future__ import annotations

import shutil
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from ecot.core.clean import encodable
from ecot.core.domain import Domain, find_domain
from ecot.core.errors import EcotError, TaskOptionsError, ToolMissingError, did_you_mean
from ecot.core.outcome import Outcome, infra_error
from ecot.core.task import Task
from ecot.domains.versions import tool_version

__all__ = [
    "Backend",
    "DomainOptions",
    "FreeOptions",
    "OptionProblem",
    "build_options",
    "check_options",
    "describe_options_error",
    "tool_version",
]


class OptionProblem(ValueError):
    """An option that is well-typed but does not fit the task (e.g. it names a file the bundle lacks)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"option '{option}': {message}")
        self.option, self.message = option, message


class DomainOptions(BaseModel):
    """A domain's task [options]: typed, with defaults, and no unknown names (a typo is an error).

    Task files keep options as a plain table; the model is built from it when a suite is loaded (to
    fail early, naming the file) and once per evaluation by `Backend.run`, which hands it to `evaluate`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def check_bundle(self, files: Mapping[str, str]) -> None:
        """Checks that need the task's bundle (a named file must exist); raises OptionProblem."""

    @classmethod
    def of_task(cls, task: Task) -> Self:
        """The typed options of a task built in code (suites are checked at load); ValueError if wrong."""
        try:
            made = build_options(cls, task.options, task.files)
        except OptionProblem as err:
            raise ValueError(f"task {task.id}: {err}") from None
        assert isinstance(made, cls)
        return made


class FreeOptions(DomainOptions):
    """Options of a domain that declares no model: anything goes, the backend checks what it reads."""

    model_config = ConfigDict(extra="allow", frozen=True)


def describe_options_error(err: ValidationError, model: type[BaseModel] | None = None) -> tuple[str, str]:
    """(name of the first bad option, every problem pydantic found in words: the first one's message, then
    "; option 'y': ..." for each other); an unknown name gets the closest of `model`'s options."""
    problems = []
    for error in err.errors():
        option = ".".join(str(part) for part in error["loc"]) or "(options)"
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown option" + (did_you_mean(option, model.model_fields) if model is not None else "")
        problems.append((option, message))
    (option, message), others = problems[0], problems[1:]
    return option, "; ".join([message, *(f"option '{name}': {text}" for name, text in others)])


def build_options(model: type[BaseModel], options: Mapping[str, Any], files: Mapping[str, str]) -> BaseModel:
    """A task's typed options, checked against its bundle too; OptionProblem names the first bad option."""
    try:
        made = model.model_validate(dict(options))
    except ValidationError as err:
        raise OptionProblem(*describe_options_error(err, model)) from None
    if isinstance(made, DomainOptions):
        made.check_bundle(files)
    return made


def check_options(model: type[BaseModel], options: Mapping[str, Any], files: Mapping[str, str], where: str) -> None:
    """Validate a task's options at load time; TaskOptionsError names the file and the option."""
    try:
        build_options(model, options, files)
    except OptionProblem as err:
        raise TaskOptionsError(where, err.option, err.message) from None


OptionsT = TypeVar("OptionsT", bound=BaseModel)  # the options model a backend's evaluate reads


class Backend(ABC, Generic[OptionsT]):
    domain: ClassVar[str]  # the name of the domain descriptor that holds this backend's labels
    tools: ClassVar[tuple[str, ...]] = ()  # executables that must be on PATH
    optional_tools: ClassVar[tuple[str, ...]] = ()  # executables used when PATH has them (valgrind's counts)
    install_hint: ClassVar[str] = "run `make setup`"
    # what one evaluation needs, for placement on Ray (vocabulary in ecot.executors.local: "cpu", "gpu",
    # "memory_mb", "toolchain:<name>", custom names); "toolchain:<domain>" is always implied
    requires: ClassVar[dict[str, float]] = {}
    options_model: ClassVar[type[DomainOptions]] = FreeOptions  # the task [options] this backend reads
    # A caller that judges one candidate at a time (`ecot check`) has cores to spare: a backend may then
    # run one evaluation's independent steps at once (rtl: Yosys beside the simulation). The verdict is
    # the same either way; pools of workers leave it off, where it would only cost CPU.
    overlap: bool = False

    # -- lifecycle: the owner (ecot.domains.get_backend, an executor's worker) calls prepare() before
    # the first evaluation and close() when done; `with backend:` does both. A backend may be
    # prepared again after close().
    def prepare(self) -> None:
        """Start what the backend keeps warm between evaluations (interpreters, caches). Idempotent."""
        return None

    def close(self) -> None:
        """Stop what prepare() or an evaluation started; idempotent."""
        return None

    def __enter__(self) -> Self:
        self.prepare()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    def check_tools(self) -> None:
        for tool in self.tools:
            if shutil.which(tool) is None:
                raise ToolMissingError(tool, self.install_hint)

    def tool_versions(self) -> dict[str, str]:
        return {tool: tool_version(tool) for tool in self.tools}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "labels" in vars(cls):  # a second label list would drift from the descriptor's
            raise TypeError(
                f"{cls.__qualname__} declares `labels`; a backend's labels are its domain descriptor's "
                "(Domain(labels=...)), declare them there"
            )

    @classmethod
    def descriptor(cls) -> Domain:
        """The descriptor of this backend's domain; EcotError for a backend registered without one."""
        described = find_domain(cls.domain)
        if described is None:
            raise EcotError(
                f"backend {cls.__qualname__}: domain '{cls.domain}' has no descriptor, so no label set; "
                "register a Domain in the `ecot.domains` entry-point group"
            )
        return described

    @classmethod
    def all_labels(cls) -> tuple[str, ...]:
        """Every label this backend may give: its descriptor's own labels, then the shared ones."""
        return cls.descriptor().all_labels()

    def run(self, task: Task, candidate: str) -> Outcome:
        """Judge one candidate; harness failures become Infra_Error, never the code's fault."""
        if task.domain != self.domain:
            raise ValueError(f"task {task.id} is domain '{task.domain}', not '{self.domain}'")
        start = time.monotonic()
        try:  # a lone surrogate (a model's answer may hold one) cannot be written as UTF-8: U+FFFD instead
            outcome = self.evaluate(task, self.task_options(task), encodable(candidate))
        except Exception as err:  # noqa: BLE001 - any harness crash is an infrastructure failure
            outcome = infra_error(f"{self.domain} backend failed: {type(err).__name__}: {err}")
        return Outcome(
            label=outcome.label,
            diagnostic=outcome.diagnostic,
            log=outcome.log,
            metrics=outcome.metrics,
            tool_versions=self.tool_versions(),
            wall_s=round(time.monotonic() - start, 4),
        )

    def task_options(self, task: Task) -> OptionsT:
        """The task's typed options (its descriptor's model, else the one this backend declares), validated
        now: once per evaluation; ValueError names a bad option."""
        from ecot.domains import options_model

        try:
            made = build_options(options_model(self.domain), task.options, task.files)
        except OptionProblem as err:
            raise ValueError(f"task {task.id}: {err}") from None
        return cast(OptionsT, made)  # the model registered for this domain is the one its evaluate reads

    @abstractmethod
    def evaluate(self, task: Task, options: OptionsT, candidate: str) -> Outcome:
        """Domain work on the typed options `run` validated; may raise on harness failure."""
