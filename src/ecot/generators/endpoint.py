"""Endpoint health for the `openai` generator: a pre-flight request and a circuit breaker.

The pre-flight asks the endpoint for its models (or, where it has no such route, for a 1-token
completion) before a run starts, so a closed port or a wrong key costs one request and one line that
names the URL, not a minute of retries per trajectory; a model it does not list is tried with one
token, and a 404 for it stops the run before it starts. The breaker stops a run whose endpoint went
away mid-run: after `failures` connection failures in a row, spanning at least `seconds`, every
request fails at once instead of backing off.
"""

from __future__ import annotations

import logging
import time

import openai

from ecot.core.errors import EcotError

log = logging.getLogger(__name__)

PREFLIGHT_TIMEOUT_S = 5.0


class EndpointError(EcotError):
    """The endpoint cannot be used at all: unreachable, or it refuses our key or route."""


class EndpointDownError(EndpointError):
    """The circuit breaker is open: the endpoint stopped accepting connections during the run."""


def _reason(err: BaseException) -> str:
    """The root cause of a connection error, e.g. '[Errno 111] Connection refused'."""
    cause = err.__cause__ or err.__context__
    while cause is not None and (cause.__cause__ or cause.__context__) is not None:
        cause = cause.__cause__ or cause.__context__
    text = str(cause or err).strip()
    return text or type(cause or err).__name__


def preflight(base_url: str | None, api_key: str, model: str, timeout: float = PREFLIGHT_TIMEOUT_S) -> list[str]:
    """Check the endpoint answers; returns the model ids it lists (empty when it lists none).

    Raises EndpointError with one line naming the URL when it is unreachable or rejects us.
    """
    where = base_url or "https://api.openai.com/v1"
    client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
    try:
        try:
            models = [m.id for m in client.models.list()]
        except openai.NotFoundError:  # no /models route: one token of a completion proves the rest
            _one_token(client, model)
            return []
        if models and model not in models:  # an alias may still work; a 404 says it does not
            try:
                _one_token(client, model)
            except openai.NotFoundError:
                raise EndpointError(f"endpoint {where} does not serve model {model!r} (it lists: {_shown(models)}); "
                                    "pass --model with one of those") from None
        return models
    except openai.APITimeoutError:
        raise EndpointError(f"endpoint {where} did not answer within {timeout:g} s (pre-flight request)") from None
    except openai.APIConnectionError as err:
        raise EndpointError(f"cannot reach endpoint {where}: {_reason(err)} (is the server running?)") from None
    except openai.APIStatusError as err:
        raise EndpointError(f"endpoint {where} refused the pre-flight request ({err.status_code}): {_short(err)}") from None
    finally:
        client.close()


def _one_token(client: openai.OpenAI, model: str) -> None:
    client.chat.completions.create(model=model, messages=[{"role": "user", "content": "ping"}], max_tokens=1)


def _shown(models: list[str]) -> str:
    return ", ".join(models[:5]) + (" ..." if len(models) > 5 else "")


def _short(err: openai.APIStatusError) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    message = body.get("message") or (body.get("error") or {}).get("message") if body else None
    return str(message or err.message)[:200]


def is_connection_failure(err: BaseException) -> bool:
    """A refused or dropped connection; a timeout is not one (the server may just be busy)."""
    return isinstance(err, openai.APIConnectionError) and not isinstance(err, openai.APITimeoutError)


class CircuitBreaker:
    """Counts connection failures in a row across all requests of one generator; any success resets it."""

    def __init__(self, where: str, failures: int = 16, seconds: float = 20.0) -> None:
        self.where = where
        self.failures = failures  # 0 disables the breaker
        self.seconds = seconds
        self._count = 0
        self._first: float | None = None
        self.open_reason: str | None = None

    def success(self) -> None:
        self._count, self._first = 0, None

    def failure(self, err: BaseException) -> None:
        if not self.failures or not is_connection_failure(err):
            return
        now = time.monotonic()
        self._count += 1
        self._first = now if self._first is None else self._first
        if self.open_reason is None and self._count >= self.failures and now - self._first >= self.seconds:
            self.open_reason = (
                f"endpoint {self.where} is unreachable: {self._count} connection failures in a row "
                f"over {now - self._first:.0f} s ({_reason(err)})"
            )
            log.error("%s; stopping the run", self.open_reason)

    def check(self) -> None:
        """Raise at once while the breaker is open."""
        if self.open_reason is not None:
            raise EndpointDownError(self.open_reason)


def listed(models: list[str], model: str, where: str) -> None:
    """Warn (not fail: the pre-flight found the endpoint accepts it as an alias) when it does not list the model."""
    if models and model not in models:
        log.warning("endpoint %s does not list model %r (it lists: %s)", where, model, _shown(models))
