"""The shape of the code: imports at the top of modules (but for the lazy imports
of TensorFlow and of the web extra), no import cycles, and nothing that imports TensorFlow at start-up. The
layer contract itself (each layer imports only the layers below it) is
import-linter's, in pyproject.toml, run by `make test`."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the modules that import TensorFlow when they load: the only ones a function may import
TENSORFLOW_MODULES = {"tensorflow", "keras", "engines.neural.backend", "engines.training.supervised",
                      "engines.training.alphazero", "engines.training.rl", "engines.neural.models",
                      "engines.neural.resnet"}
#: the modules of the other optional extras, imported only by what uses them: the web server
#: (`dlgo serve`) and Ray (`--ray`)
WEB_MODULES = {"dlgo.app.web.server", "dlgo.arena.distributed"}


def function_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import statement inside a function of ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom) and sub.module:
                    found.append((sub.lineno, sub.module))
                elif isinstance(sub, ast.Import):
                    found.extend((sub.lineno, alias.name) for alias in sub.names)
    return found


@pytest.mark.parametrize("package", ["dlgo", "engines", "experiments", "benchmarks"])
def test_imports_sit_at_the_top_but_for_tensorflow_and_the_web_extra(package):
    lazy = [f"{path.relative_to(ROOT)}:{line}: {module}"
            for path in sorted((ROOT / package).rglob("*.py"))
            for line, module in function_level_imports(path) if module not in TENSORFLOW_MODULES | WEB_MODULES]
    assert lazy == []


def imported_modules(path: Path) -> set[str]:
    """Every module that ``path`` imports, at any level."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_experiments_share_code_through_common_only():
    """A script imports the library and ``experiments.common``, never another script;
    ``common`` imports no script."""
    scripts = {f"experiments.{p.stem}" for p in (ROOT / "experiments").glob("*.py")} - {"experiments.__init__"}
    assert "experiments.common" in scripts
    reached = {f"{path.stem}": sorted(imported_modules(path) & (scripts - {"experiments.common"}))
               for path in sorted((ROOT / "experiments").glob("*.py"))}
    assert {name: modules for name, modules in reached.items() if modules} == {}


def test_the_experiments_start_without_tensorflow():
    """Only training pulls TensorFlow in: a chapter's --help and the classic chapters start at once."""
    code = ("import sys, experiments.common, experiments.ch04b_mcts, experiments.ch14b_alphazero_connect4; "
            "print('tensorflow' in sys.modules or 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


def test_the_tensorflow_modules_really_import_tensorflow():
    """The exception above is only for modules that do pull TensorFlow in."""
    for module in TENSORFLOW_MODULES - {"tensorflow", "keras"}:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert "import tensorflow" in source or "engines.neural.backend import" in source, module


def test_no_import_cycles():
    graph = grimp.build_graph("dlgo", "engines")
    cycles = [(a, b) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
              if graph.chain_exists(importer=b, imported=a)]
    assert cycles == []


def test_the_library_and_the_cli_start_without_tensorflow_the_web_server_or_ray():
    code = ("import sys, dlgo.app.cli, dlgo.arena.tournament, dlgo.data.dataset, engines.mcts, engines.alphazero, "
            "engines.analysis; print(sorted({'tensorflow', 'keras', 'fastapi', 'uvicorn', 'ray'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_optional_modules_really_import_their_extra():
    for module in WEB_MODULES:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert "from fastapi import" in source or "import ray" in source, module
