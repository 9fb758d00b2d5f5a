"""What ``simpop run`` settles before it runs: the sequential gate and its policy, the
calibrator, the run's directory, and the coroutine that runs it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simpop.cli.common import UserError, err_console
from simpop.store import RunStore

if TYPE_CHECKING:
    from simpop.cli.run import RunOptions
    from simpop.models import RunConfig
    from simpop.report.policy import Policy
    from simpop.run.plan import RunInputs


def with_sequential_gate(config: RunConfig) -> RunConfig:
    """The config with ``--until-decided``: its gate sequential."""
    from simpop.models import GateConfig

    gate = (config.gate or GateConfig()).model_copy(update={"sequential": True})
    return config.model_copy(update={"gate": gate})


def sequential_gate(config: RunConfig, options: RunOptions) -> RunOptions:
    """The options with the policy file the run's gate is decided on: ``--policy``, else the
    config's ``gate.policy``; a sequential gate without one is an error."""
    gate = config.gate
    if gate is not None and options.policy_file is None and gate.policy is not None:
        options = replace(options, policy_file=gate.policy)
    if gate is not None and gate.sequential and options.policy_file is None:
        raise UserError("--until-decided (gate.sequential): needs --policy FILE or gate.policy in the config")
    return options


def execution(
    store: RunStore,
    config: RunConfig,
    inputs: RunInputs,
    policy: Policy | None,
    options: RunOptions,
    progress: Any,
) -> Any:
    """The run's coroutine: in rounds until the policy is decided, or every cell at once."""
    if config.gate is not None and config.gate.sequential and policy is not None:
        from simpop.release.until_decided import execute_until_decided

        name = policy.name or (options.policy_file.stem if options.policy_file else "policy")
        return execute_until_decided(
            store, config, inputs, policy, name, use_cache=not options.no_cache, progress=progress
        )
    from simpop.run.execute import execute

    return execute(store, config, inputs, use_cache=not options.no_cache, progress=progress)


def policy_and_calibrator(
    policy_file: Path | None, calibrator_file: Path | None
) -> tuple[Policy | None, Any]:
    """A bad policy or calibrator fails before the run, and before the heavy libraries load."""
    from simpop.report.policy import load_policy

    policy = None if policy_file is None else load_policy(policy_file)
    if calibrator_file is None:
        return policy, None
    from simpop.calibration.calibrate import read_calibrator  # scikit-learn: only when asked

    return policy, read_calibrator(calibrator_file)


def run_store(options: RunOptions, store: RunStore | None, config: RunConfig, inputs: RunInputs) -> RunStore:
    """A new run's directory, or the resumed run's, less what failed with ``--retry-failed``."""
    if store is None:
        from simpop.run.plan import pinned

        store = RunStore.create(options.out, pinned(config, inputs))
    if options.retry_failed:
        from simpop.run.retry import drop_failed, retry_line

        err_console.print(retry_line(drop_failed(store)))
    return store
