"""What ``kmdr`` reads from its command line itself; everything else is Hydra's.

- ``--version`` prints kmdr's version (the installed distribution's), not Hydra's.
- :func:`command_line_problem`: the one line for the mistakes Hydra's argparse would answer with
  a usage screen or a message that does not say what to do: an option Hydra does not have
  (``--bogus``), a value outside an option's choices (``--cfg jobs``) or missing, ``--cfg`` with
  ``-m``, and a flag placed after an override that another override follows.
"""

from __future__ import annotations

__all__ = [
    "CFG_FLAGS",
    "CONFIG_DIR_FLAGS",
    "HYDRA_OPTIONS",
    "MULTIRUN_FLAGS",
    "command_line_problem",
    "has_option",
    "option_problem",
    "option_value",
    "version_line",
]

CFG_FLAGS = ("-c", "--cfg")
CONFIG_DIR_FLAGS = ("-cd", "--config-dir")
MULTIRUN_FLAGS = ("-m", "--multirun")

#: The options of Hydra 1.3's command line, as ``kmdr --hydra-help`` lists them under "Flags"
#: (tests/app/test_cli_errors.py checks this table against that list): each option's spellings,
#: and what follows it: None (nothing), "value" (one value) or the tuple of its choices ("?"
#: first: the value may be left out). Hydra reads them with argparse, whose answer to a mistake
#: is a usage screen; kmdr answers it in one line before Hydra starts.
HYDRA_OPTIONS: tuple[tuple[tuple[str, ...], object], ...] = (
    (("--help", "-h"), None),
    (("--hydra-help",), None),
    (("--version",), None),
    (("--cfg", "-c"), ("job", "hydra", "all")),
    (("--resolve",), None),
    (("--package", "-p"), "value"),
    (("--run", "-r"), None),
    (("--multirun", "-m"), None),
    (("--shell-completion", "-sc"), None),
    (("--config-path", "-cp"), "value"),
    (("--config-name", "-cn"), "value"),
    (("--config-dir", "-cd"), "value"),
    (("--experimental-rerun",), "value"),
    (
        ("--info", "-i"),
        ("?", "all", "config", "defaults", "defaults-tree", "plugins", "searchpath"),
    ),
)


def _flag(token: str) -> str:
    """``--cfg=job`` -> ``--cfg``."""
    return token.partition("=")[0] if token.startswith("--") else token


def has_option(args: list[str], flags: tuple[str, ...]) -> bool:
    """Whether ``args`` give one of ``flags``, spelt in any way argparse reads (``--multi``)."""
    for token in args:
        if token.startswith("-"):
            found = _option(_flag(token))
            if _flag(token) in flags or (isinstance(found, tuple) and found[0] in flags):
                return True
    return False


def _is_override(token: str) -> bool:
    """A token argparse hands to Hydra as an override (a flag's value has no ``=``)."""
    return not token.startswith("-") and "=" in token


def _spellings() -> dict[str, tuple[str, object]]:
    return {name: (names[0], takes) for names, takes in HYDRA_OPTIONS for name in names}


def _option(token: str) -> tuple[str, object, str] | str:
    """The option ``token`` names, as argparse reads it: ``(its long spelling, what follows it,
    a value attached to it)`` for an exact spelling, the unique start of one long option
    (``--multi``) or a two-letter short option with its value attached (``-cjob``); else the
    one line saying why it names none."""
    spellings = _spellings()
    if token in spellings:
        return (*spellings[token], "")
    if token.startswith("--"):
        found = sorted({spellings[n][0] for n in spellings if n.startswith(token)})
        if len(found) == 1:
            return (*spellings[found[0]], "")
        if found:
            return f"the option {token} is ambiguous: it starts {', '.join(found)}"
    elif token[:2] in spellings and spellings[token[:2]][1] is not None:
        return (*spellings[token[:2]], token[2:])
    return (
        f"unknown option {token}: kmdr reads Hydra's options ({_known_options()}) and "
        "key=value overrides; see kmdr --help"
    )


def _known_options() -> str:
    return ", ".join("/".join(names) for names, _ in HYDRA_OPTIONS)


def _read(args: list[str]):
    """Each option of ``args`` as argparse reads it: ``(token, found, value)``, ``found`` being
    :func:`_option`'s answer and ``value`` the one attached (``--cfg=job``, ``-cjob``) or, for an
    option that takes one, the next word that is not a flag; None when none is given."""
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if not token.startswith("-") or token == "-":
            continue
        flag, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        found = _option(flag)
        if isinstance(found, tuple) and found[2]:
            eq, value = "=", found[2]
        if not eq:
            value = None
            takes = found[1] if isinstance(found, tuple) else None
            if takes is not None and i < len(args) and not args[i].startswith("-"):
                value, i = args[i], i + 1
        yield token, found, value


def option_problem(args: list[str]) -> str | None:
    """The one line for an option Hydra's command line does not have, a value outside an
    option's choices, or an option left without its value; None if every option is Hydra's."""
    for token, found, value in _read(args):
        if isinstance(found, str):
            return found
        name, takes, _ = found
        if takes is None:
            if value is not None:
                return f"the option {name} takes no value, got {token!r}"
            continue
        optional = isinstance(takes, tuple) and takes[0] == "?"
        if value is None:
            if optional:
                continue
            return f"the option {name} needs a value (e.g. {name} {_example(takes)})"
        if isinstance(takes, tuple) and value not in takes[optional:]:
            return f"the option {name} takes one of {', '.join(takes[optional:])}, got {value!r}"
    return None


def _example(takes) -> str:
    return takes[0] if isinstance(takes, tuple) else "<value>"


def option_value(args: list[str], flags: tuple[str, ...]) -> str | None:
    """The value given to the option spelt by ``flags`` (``-cd DIR``, ``--config-dir=DIR``, a
    prefix argparse reads), or None when it is not given."""
    for _token, found, value in _read(args):
        if isinstance(found, tuple) and found[0] in flags:
            return value
    return None


def command_line_problem(args: list[str]) -> str | None:
    """The one line for an option Hydra does not have or a bad value of one
    (:func:`option_problem`), for ``--cfg`` given with ``-m``, or for a flag between overrides,
    else None."""
    problem = option_problem(args)
    if problem is not None:
        return problem
    if has_option(args, CFG_FLAGS) and has_option(args, MULTIRUN_FLAGS):
        return (
            "--cfg prints the config of one job, so it does not go with -m/--multirun; leave "
            "out -m and give each swept key one of its values (e.g. dataset=orl)"
        )
    first = next((i for i, a in enumerate(args) if _is_override(a)), None)
    if first is None:
        return None
    for i, token in enumerate(args[first + 1 :], start=first + 1):
        if token.startswith("-") and any(_is_override(a) for a in args[i + 1 :]):
            return (
                f"the flag {_flag(token)} comes after the override {args[first]!r}: Hydra reads "
                f"flags only before the overrides; write `kmdr {token} ... {args[first]} ...`"
            )
    return None


def version_line() -> str:
    """``kmdr <version>``."""
    import kmdr

    return f"kmdr {kmdr.__version__}"
