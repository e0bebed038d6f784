"""``kmdr --help`` is kmdr's own (the ``hydra.help`` template of conf/config.yaml), ``--hydra-help``
stays Hydra's; and through the real command, the mistakes a user's hands make are each one line,
exit status 2, with Hydra reading the command line as it is (no argv rewriting, nothing held)."""

from __future__ import annotations

import importlib.metadata
import os
import sys

import pytest
from test_cli import TINY, run_kmdr

import _command as command
from _overrides import refusal

pytestmark = pytest.mark.slow


def _commands() -> list[str]:
    """kmdr's console scripts, as the installed distribution declares them."""
    dist = importlib.metadata.distribution("kmdr")
    return sorted(ep.name for ep in dist.entry_points if ep.group == "console_scripts")


def test_help_says_what_kmdr_does_and_lists_its_commands(tmp_path):
    proc = run_kmdr(["--help"], tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    text = proc.stdout
    assert "dimensionality reduction before k-means" in text
    commands = _commands()
    assert len(commands) >= 7 and "kmdr-compare" in commands
    for name in commands:  # each command on a line of its own, with what it does
        assert any(ln.split()[:1] == [name] and len(ln.split()) > 2 for ln in text.splitlines()), (
            name
        )
    # the config groups and their options (Hydra's $APP_CONFIG_GROUPS), examples, the docs
    assert "dataset: coil20," in text and "experiment: bmd09_fig1," in text
    assert "kmdr experiment=bzmd14_orl" in text and "kmdr -m " in text
    assert "README.md" in text and "--hydra-help" in text
    assert "powered by Hydra" not in text  # not Hydra's stock text
    assert list(tmp_path.iterdir()) == []


def test_hydra_help_stays_hydras(tmp_path):
    proc = run_kmdr(["--hydra-help"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "hydra/launcher:" in proc.stdout and "--multirun,-m" in proc.stdout


def _refused(args, capsys) -> str:
    """``kmdr args`` in this process, refused before any work: its message on one line."""
    with pytest.raises(SystemExit) as exc:
        command.kmdr(args)
    out = capsys.readouterr()
    return refusal(exc.value.code, out.err, out.out)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["r_grid=[2,4"], "no viable alternative at input '[2,4'", id="bad-override"),
        pytest.param(["dataset=nosuch"], "Could not find 'dataset/nosuch'", id="group"),
        pytest.param(["kmeans.n_inti=3"], "Could not override 'kmeans.n_inti'", id="key"),
        pytest.param(
            ["reducer=sign", "-m", "dataset=orl,coil20"],
            "kmdr: error: unrecognized arguments: dataset=orl,coil20",
            id="misplaced-flag",
        ),
        pytest.param(
            ["dataset=orl", "--cfg", "job", "reducer=svd"],
            "kmdr: error: unrecognized arguments: reducer=svd",
            id="misplaced-cfg",
        ),
    ],
)
def test_a_mistake_on_the_command_line_is_hydras_answer(args, expected, tmp_path, capsys):
    assert expected in _refused(args, capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_flag_after_the_last_override_is_still_read(tmp_path):
    """Hydra's argparse reads ``kmdr key=value -m``: kmdr refuses only what argparse would."""
    proc = run_kmdr([*TINY, "dry_run=true", "reducer=sign,none", "-m"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("dry run of custom") == 2


def test_a_yaml_error_in_a_cd_folder_is_yamls_as_hydra_prints_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf" / "dataset").mkdir(parents=True)
    (tmp_path / "conf" / "dataset" / "mine.yaml").write_text("name: synth\nparams: {seed: [1\n")
    line = _refused(["-cd", str(tmp_path / "conf"), "dataset=mine"], capsys)
    assert 'mine.yaml", line' in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conf"]


def test_hydra_full_error_set_by_the_user_gives_hydras_exception(monkeypatch):
    from hydra.errors import MissingConfigException

    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    with pytest.raises(MissingConfigException, match="Could not find 'dataset/nosuch'"):
        command.kmdr(["dataset=nosuch"])


def test_main_in_process_leaves_argv_and_environment_as_they_were(monkeypatch, capsys):
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    argv = list(sys.argv)
    with pytest.raises(SystemExit) as exc:
        command.kmdr(["dataset=nosuch"])
    assert exc.value.code == 1 and "Could not find 'dataset/nosuch'" in capsys.readouterr().err
    assert sys.argv == argv and "HYDRA_FULL_ERROR" not in os.environ
