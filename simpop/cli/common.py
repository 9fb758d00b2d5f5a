"""What every command shares: the consoles, one-line errors (exit status 2), progress bars, the
common options and how RUN or a config's models are found."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import Progress

from simpop import __version__
from simpop.cli.interrupt import INTERRUPTED
from simpop.cli.progress import progress_display
from simpop.errors import SimpopError
from simpop.models import EmbeddingConfig, LLMConfig
from simpop.models.registry import PLUGINS_ENV, allow_plugins, plugins_allowed
from simpop.redact import RedactedStream, redact

if TYPE_CHECKING:
    from simpop.store import RunStore

# Tables stay readable when the output is piped or captured (rich would use 80 columns).
# Both redact the secrets simpop read (an endpoint may echo them in an error).
console = Console(file=RedactedStream(lambda: sys.stdout), width=None if sys.stdout.isatty() else 160)
err_console = Console(file=RedactedStream(lambda: sys.stderr), stderr=True)


# exit statuses: 0 ok; 1 the release gate failed; 2 bad input; 3 the run is incomplete
GATE_FAILED = 1
BAD_INPUT = 2
INCOMPLETE = 3


class UserError(click.ClickException):
    """Bad input: one line on stderr, exit status 2 (an endpoint may have echoed a secret in it)."""

    exit_code = BAD_INPUT

    def format_message(self) -> str:
        return redact(self.message)


class Interrupted(click.ClickException):
    """Ctrl-C outside a run's own handler: one line, exit status 130."""

    exit_code = INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: object = None) -> None:
        click.echo("\ninterrupted", err=True)


class SimpopGroup(click.Group):
    """The ``simpop`` group: its commands are imported when one is named (``lazy``: each name's
    module and one-line help), so ``simpop --help`` imports none of them; bad input and usage
    errors are one line."""

    lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.lazy:
            importlib.import_module(self.lazy[name][0])
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click lists them, the commands not imported yet from their one-line help."""
        listed = {
            name: self.commands.get(name) or click.Command(name, help=self.lazy[name][1])
            for name in self.list_commands(ctx)
        }
        limit = formatter.width - 6 - max(map(len, listed))
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, c.get_short_help_str(limit)) for name, c in listed.items() if not c.hidden]
            )

    def invoke(self, ctx: click.Context):
        # a command reads configs and runs: the built-in kinds and metrics first (not for --help)
        import simpop.run.components  # noqa: F401

        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:  # one line, with where to read more
            where = error.ctx.command_path if error.ctx is not None else ctx.command_path
            raise UserError(f"{error.format_message()} (see {where} --help)") from None
        except KeyboardInterrupt:
            raise Interrupted() from None
        except SimpopError as error:
            if ctx.params.get("verbose") and len(error.details) > 1:
                raise UserError("\n".join([f"{len(error.details)} problems:", *error.details])) from None
            raise UserError(str(error)) from None
        except (IsADirectoryError, NotADirectoryError, PermissionError) as error:  # a path that is bad input
            raise UserError(f"{error.filename}: {error.strerror}") from None


def scenario_choice(value: str | None, option: str) -> list[str] | str | None:
    """``all``, ``none`` (no id) or comma-separated ids; None where ``option`` was not given."""
    if value is not None and value.strip() in ("all", "none"):
        return "all" if value.strip() == "all" else []
    return ids(value, option)


def ids(value: str | None, option: str) -> list[str] | None:
    """Comma-separated ids; None where ``option`` was not given, an error where it names none."""
    if value is None:
        return None
    found = [part.strip() for part in value.split(",") if part.strip()]
    if not found:
        raise UserError(f"{option} {value!r}: no id in it (comma-separated ids)")
    return found


def progress_bars(plan: dict[str, float | None] | None = None) -> Progress:
    """Progress of a long command on stderr: bars in a terminal, plain lines elsewhere
    (``plan``: the LLM seconds of each stage, for the times left)."""
    return progress_display(err_console, plan)


class OutputFile(click.ParamType):
    """A file a command will write, checked before any work: not a folder, in a folder that
    exists, not one of a run's records, not a file the command reads."""

    name = "file"

    def convert(self, value: str | Path, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        from simpop.store import CONFIG_FILE, SUMMARY_FILE

        path = Path(value)
        if path.is_dir():
            self.fail(f"{path} is a folder, not a file", param, ctx)
        if not path.parent.is_dir():
            self.fail(f"{path}: folder {path.parent} does not exist", param, ctx)
        run = (path.parent / CONFIG_FILE).is_file() and (
            path.suffix == ".jsonl" or path.name in (CONFIG_FILE, SUMMARY_FILE)
        )
        if run:
            self.fail(f"{path} is one of run {path.parent.name}'s records: write elsewhere", param, ctx)
        given = ctx.params.values() if ctx is not None else ()
        if path.exists() and any(isinstance(v, str | Path) and _same(Path(v), path) for v in given):
            self.fail(f"{path} is also what this command reads: write elsewhere", param, ctx)
        return path


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and a.samefile(b)
    except OSError:
        return False


OUTPUT_FILE = OutputFile()


CALIBRATOR_OPTION = click.option(
    "--calibrator",
    "calibrator_file",
    type=click.Path(path_type=Path),
    help="Calibrator from simpop calibrate: add calibrated probabilities and a review queue.",
)


def _allow_plugins(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        allow_plugins()


ALLOW_PLUGINS_OPTION = click.option(
    "--allow-plugins",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_allow_plugins,
    help=f"Import the plugins (Python code) a received run or config names; only for one you trust "
    f"(or set {PLUGINS_ENV}=1).",
)


RUNS_OPTION = click.option(
    "--runs",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Folder of run directories (when RUN is a run id).",
)


@click.group(cls=SimpopGroup)
@click.version_option(__version__, prog_name="simpop")
@click.option("--verbose", is_flag=True, help="On bad input, list every problem found, not only the first.")
def cli(verbose: bool) -> None:
    """Simulate patient populations to stress-test a medical question-answering chatbot."""


def run_store(run: str, runs: Path) -> RunStore:
    """RUN is a run directory, or a run id under ``runs``."""
    from simpop.store import RunStore, run_directory

    directory = run_directory(run, runs)
    return RunStore.open(directory.parent, directory.name)


def config_models(config_file: Path | None, judge: bool = True) -> tuple[LLMConfig, EmbeddingConfig]:
    """The LLM (the judge's when ``judge``, else the run's) and the embedding model of a run
    config, or the built-in ones; the environment's ``SIMPOP_LLM_*`` applied."""
    from simpop.config import apply_llm_env
    from simpop.run.components import load_run_config

    llm, embedding = LLMConfig(), EmbeddingConfig()
    if config_file is not None:
        config = load_run_config(config_file, with_plugins=plugins_allowed())
        llm, embedding = (config.judge or config.llm) if judge else config.llm, config.embedding
    return apply_llm_env(llm, dict(os.environ)), embedding
