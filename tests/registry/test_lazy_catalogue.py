"""The catalogue is imported by the name asked for: looking one entry up imports the module that registers it and
no other, listing imports them all and lists them in the catalogue's order whatever was looked up first, and the
table of which module registers which name is the modules' own registrations.

Each check runs in a fresh process whose only import of the package is ``hockeystick.registry`` (which imports no
catalogue module: none is in ``sys.modules`` and the registry is empty there), the state the first line of every
check reaches in a fresh interpreter: one interpreter per test module makes that import once and forks a child per
check (where ``os.fork`` exists; elsewhere each check starts its own interpreter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from hockeystick.registry import catalogue

PACKAGE = "hockeystick.registry.catalogue"
SHARED = {"calibratables"}  # the calibratable ranges several modules share: it registers nothing


# Reads a check's code per line (JSON) and answers [exit status, stdout, stderr] of a child forked to run it.
_FORKING_SERVER = """
import json, os, signal, sys, tempfile, traceback
import hockeystick.registry
for line in sys.stdin:
    code = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            signal.alarm(300)  # a check that hangs ends, failing its test
            status = 0
            try:
                exec(compile(code, "<check>", "exec"), {"__name__": "__main__"})
            except BaseException:
                traceback.print_exc()
                status = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        answer = [os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode()]
    print(json.dumps(answer), flush=True)
"""
_server: list[subprocess.Popen[str]] = []


@pytest.fixture(scope="module", autouse=True)
def _one_interpreter_per_module() -> Iterator[None]:
    yield
    for server in _server:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)
    _server.clear()


def _run(code: str) -> object:
    """What ``code`` (a program ending in ``print(json.dumps(...))``) prints last, run in a fresh process."""
    if not hasattr(os, "fork"):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    else:
        if not _server:
            _server.append(
                subprocess.Popen(
                    [sys.executable, "-c", _FORKING_SERVER],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        server = _server[0]
        server.stdin.write(json.dumps(code) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        status, stdout, stderr = json.loads(server.stdout.readline())  # type: ignore[union-attr]
    assert status == 0, stderr
    return json.loads(stdout.splitlines()[-1])


def _catalogue_modules_loaded_by(code: str) -> set[str]:
    probe = (
        f"import json, sys\n{code}\n"
        f"print(json.dumps(sorted(m[len({PACKAGE!r}) + 1:] for m in sys.modules if m.startswith({PACKAGE!r} + '.'))))"
    )
    loaded = _run(probe)
    assert isinstance(loaded, list)
    return set(loaded) - SHARED


def test_the_table_is_what_each_module_registers():
    """Imported one by one in the listing's order, each module registers exactly the names the table gives it, in
    that order (a name added to a module and not to the table fails here)."""
    probe = (
        "import importlib, json\n"
        "from hockeystick.registry import store\n"
        "def registered():\n"
        "    return list(store.REGISTRY._entries) + list(store.CALCULATORS._entries)\n"
        "found = {}\n"
        f"for module in {list(catalogue.MODULES)!r}:\n"
        "    before = set(registered())\n"
        f"    importlib.import_module({PACKAGE!r} + '.' + module)\n"
        "    found[module] = [n for n in registered() if n not in before]\n"
        "print(json.dumps(found))\n"
    )
    found = _run(probe)
    assert found == {module: list(names) for module, names in catalogue.MODULES.items()}


def test_importing_the_registry_imports_no_catalogue_module():
    assert _catalogue_modules_loaded_by("import hockeystick.registry") == set()


@pytest.mark.parametrize("module", list(catalogue.MODULES))
@pytest.mark.parametrize("how", ["lookup", "get", "in", "configure"])
def test_looking_a_name_up_imports_its_module_alone(module, how):
    """Every door that reads one entry by its name: ``lookup``, ``get`` (an accountant's), ``in`` on the two
    mappings, a family configured by its name (``get`` of FAMILY[...])."""
    names = catalogue.MODULES[module]
    if how == "get":
        accountants = [n for n in names if not n.startswith("leakage_")]
        if not accountants:
            pytest.skip(f"{module} registers calculators only")
        code = f"from hockeystick import registry\nassert registry.get({accountants[0]!r}).name == {accountants[0]!r}"
    elif how == "in":
        code = (
            "from hockeystick.registry import CALCULATORS, REGISTRY\n"
            f"assert {names[-1]!r} in REGISTRY or {names[-1]!r} in CALCULATORS"
        )
    elif how == "configure":
        if module != "matrix_mechanisms":
            pytest.skip("the families are the matrix mechanisms'")
        code = (
            "from hockeystick import registry\n"
            "entry = registry.get('dp_ftrl_banded[coefficients=1,0.5]')\n"
            "assert entry.name == 'dp_ftrl_banded[coefficients=1.0,0.5]', entry.name"
        )
    else:
        code = f"from hockeystick import registry\nassert registry.lookup({names[0]!r}).name == {names[0]!r}"
    assert _catalogue_modules_loaded_by(code) == {module}


def test_a_name_nothing_registers_is_refused_with_every_name():
    """An unknown name imports the whole catalogue: the refusal lists every registered name, the last module's
    included."""
    code = (
        "from hockeystick import registry\n"
        "try:\n"
        "    registry.get('dp_sdg')\n"
        "except ValueError as exc:\n"
        "    message = str(exc)\n"
        "import json\n"
        "print(json.dumps(message))\n"
    )
    message = _run(code)
    assert isinstance(message, str)
    assert "did you mean 'dp_sgd'?" in message
    for names in catalogue.MODULES.values():
        assert all(name in message for name in names)


def test_the_listing_keeps_the_catalogues_order_whatever_was_looked_up_first():
    """A module imported early (its name looked up) does not move its entries in the listing: the listing of a
    process that looked the last module's name up first is the listing of one that looked nothing up."""
    listing = "import json\nfrom hockeystick import registry\nprint(json.dumps([list(registry.REGISTRY), list(registry.CALCULATORS)]))"
    last = catalogue.MODULES[list(catalogue.MODULES)[-1]][0]
    plain = _run(listing)
    after_lookups = _run(
        f"from hockeystick import registry\nregistry.get({last!r})\nregistry.lookup('leakage_tv')\n{listing}"
    )
    assert after_lookups == plain
    assert isinstance(plain, list)
    every = [name for names in catalogue.MODULES.values() for name in names]
    for listed in plain:
        assert listed == sorted(listed, key=every.index)


def test_a_name_registered_outside_the_catalogue_lists_after_it_and_can_be_removed():
    """``register`` refuses a catalogue name even before its module was imported; an entry registered from outside
    lists after the catalogue's, and ``del`` removes it."""
    code = (
        "import json\n"
        "from hockeystick import registry\n"
        "from hockeystick.fdp.gaussian_mechanism import GaussianMechanism\n"
        "taken = registry.AccountantEntry(name='dp_sgd', factory=GaussianMechanism, summary='x')\n"
        "try:\n"
        "    registry.register(taken)\n"
        "    refused = False\n"
        "except ValueError:\n"
        "    refused = True\n"
        "ours = registry.AccountantEntry(name='outside_test', factory=GaussianMechanism, summary='x')\n"
        "registry.register(ours)\n"
        "registry.get('isrl_one_pass')\n"
        "listed = list(registry.REGISTRY)\n"
        "del registry.REGISTRY['outside_test']\n"
        "print(json.dumps([refused, listed[-1], 'outside_test' in registry.REGISTRY, len(registry.REGISTRY)]))\n"
    )
    refused, last, still_there, count = _run(code)  # type: ignore[misc]
    assert refused is True
    assert last == "outside_test"
    assert still_there is False
    accountants = [
        n for names in catalogue.MODULES.values() for n in names if not n.startswith("leakage_")
    ]
    assert count == len(accountants)


def test_threads_looking_names_up_at_once_see_each_module_whole():
    """Threads asking for names of one module at once each find theirs: a module another thread is importing is
    waited for, never read half-registered."""
    names = [n for names in catalogue.MODULES.values() for n in names]
    code = (
        "import json, threading\n"
        "from hockeystick import registry\n"
        "found, errors = [], []\n"
        "def ask(name):\n"
        "    try:\n"
        "        found.append(registry.lookup(name).name)\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        f"threads = [threading.Thread(target=ask, args=(n,)) for n in {names!r}]\n"
        "for t in threads:\n"
        "    t.start()\n"
        "for t in threads:\n"
        "    t.join()\n"
        "print(json.dumps([sorted(found), errors]))\n"
    )
    found, errors = _run(code)  # type: ignore[misc]
    assert errors == []
    assert found == sorted(names)
