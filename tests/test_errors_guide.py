"""docs/errors.md is what the case tables give: every message the suite checks, with its cause and
fix, grouped by what the user was doing (scripts/errors_guide.py writes it)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import errors_guide  # noqa: E402


@pytest.fixture(scope="module")
def entries():
    return errors_guide.collect()


@pytest.mark.slow  # collects the whole suite: seconds
def test_the_guide_is_what_the_case_tables_give(entries):
    written = errors_guide.GUIDE.read_text(encoding="utf-8")
    assert written == errors_guide.render(entries), (
        f"docs/errors.md is out of date: run `{errors_guide.COMMAND}`"
    )


def _entry(says, doing, cause="c", fix="f", warning=False):
    return errors_guide.Entry(says, doing, cause, fix, warning)


def test_each_message_once_under_the_first_section_that_meets_it():
    entries = [
        _entry("b is wrong", "plugin"),
        _entry("a is wrong", "data", cause="the file", fix="fetch it"),
        _entry("a is wrong", "configure", cause="the setting", fix="change it"),
        _entry("a is wrong", "configure", cause="the setting", fix="change it"),  # a second test
        _entry("slow", "run", warning=True),
    ]
    text = errors_guide.render(entries)
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [f"## {errors_guide.DOING[d]}" for d in ("configure", "run", "plugin")]
    assert text.count("### `a is wrong`") == 1 and text.count("The setting.") == 1
    assert text.index("The file.") < text.index("The setting.")  # both causes, in table order
    assert "### `slow` (warning)" in text and "### `b is wrong`\n" in text
    assert errors_guide.counts(entries) == {"configure": 1, "run": 1, "data": 0, "read": 0,
                                            "plugin": 1}  # fmt: skip


def test_a_message_holding_backticks_stays_one_code_span():
    assert errors_guide._code("use `kmdr-data` first") == "``use `kmdr-data` first``"
    assert errors_guide._code("use `kmdr-data`") == "`` use `kmdr-data` ``"
    assert errors_guide._code("`x`") == "`` `x` ``"
