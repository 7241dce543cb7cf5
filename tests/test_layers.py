"""The shape of the code: imports at the top of modules (but for the lazy imports
of TensorFlow, of pandas and matplotlib by the CLI, of the web extra and of the numba-compiled
kernels), no import cycles, and nothing that imports TensorFlow at start-up. The
layer contract itself (each layer imports only the layers below it) is
import-linter's, in pyproject.toml, run by `make test`."""
from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from typing import Sequence
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the modules that import TensorFlow when they load: the only ones a function may import
TENSORFLOW_MODULES = {"tensorflow", "keras", "engines.neural.backend", "engines.training.supervised",
                      "engines.training.solver_supervised",
                      "engines.training.alphazero", "engines.training.rl", "engines.neural.models",
                      "engines.neural.resnet", "engines.neural.inference"}
#: the Keras backends' own packages, imported where a backend's code runs (engines.neural.backend)
KERAS_BACKENDS = {"jax", "jax._src", "torch"}
#: the modules that import pandas or matplotlib when they load: the CLI's commands that draw or write a
#: report import them, so that `dlgo --help` and the other commands start without them
PLOTTING_MODULES = {"dlgo.display.pictures", "dlgo.display.plotting", "dlgo.arena.report", "dlgo.arena.mistakes",
                    "dlgo.arena.league", "dlgo.arena.leaderboard", "engines.analysis"}
#: the modules of the other optional extras, imported only by what uses them: the web server
#: (`dlgo serve`: the server and its routers, which the CLI reaches through the server alone) and Ray (`--ray`)
WEB_MODULES = {"dlgo.app.web.server", "dlgo.arena.distributed"} | {
    f"dlgo.app.web.routes.{name}" for name in ("common", "page", "catalog", "games", "engines", "reports")}
#: the optional extras' packages
EXTRAS = {"fastapi", "starlette", "uvicorn", "ray"}
#: the modules that import numba when they load (the compiled kernels and what drives them): a
#: function imports them, so that `import dlgo`, the CLI and the classic engines start without numba
COMPILED_MODULES = {"dlgo.games.kernels", "dlgo.games.go.kernels", "dlgo.games.go.pattern_kernels",
                    "dlgo.games.go.move_feature_kernels",
                    "dlgo.games.go.playouts", "dlgo.games.kinarow_kernels", "dlgo.games.solvers.bitboard_kernels",
                    "dlgo.encoders.go_kernels", "engines.mcts_kernels", "engines.go_search",
                    "engines.training.move_patterns", "engines.forest_kernels", "engines.gumbel_forest_kernels",
                    "engines.go_forest_kernels",
                    "dlgo.games.go.compiled_rules"}
#: optional packages imported where they are used: OpenSpiel's, beside our games in the benchmarks
OPTIONAL = {"pyspiel"}


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
            for line, module in function_level_imports(path)
            if module not in TENSORFLOW_MODULES | KERAS_BACKENDS | WEB_MODULES | COMPILED_MODULES | OPTIONAL
            and not module.startswith("tensorflow.")
            and not (module in PLOTTING_MODULES and path.parent == ROOT / "dlgo" / "app" / "cli")]
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


#: the modules of ``experiments.shared``, top to bottom: each imports only those below it
SHARED_LAYERS = [{"alphazero", "rl"}, {"supervised"}, {"ladders", "scaling_report", "recipe_report", "go_matches"},
                 {"recipe_variants", "unseen"}, {"chapters", "connectn", "frontier"}]


def experiment_modules() -> dict[str, Path]:
    """Every module of ``experiments/`` by its dotted name (packages by their ``__init__``)."""
    modules = {}
    for path in sorted((ROOT / "experiments").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def resolved_imports(path: Path, module: str) -> set[str]:
    """Every module ``path`` (the module ``module``) imports, relative imports made absolute, and
    for ``from X import Y`` both ``X`` and ``X.Y``; a bare ``import NAME`` also as the sibling
    ``<package>.NAME``, which is what it reaches when the script runs as a file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
            source = ".".join(filter(None, [base, node.module or ""]))
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.update({alias.name, f"{package}.{alias.name}"})
    return found


def test_experiments_share_code_through_the_shared_package_only():
    """A script imports the library and ``experiments.shared``, never another script (nor a folder
    of scripts); the shared modules import no script and no ``dlgo.app``, and one another only
    downward (``SHARED_LAYERS``)."""
    modules = experiment_modules()
    shared = {name for name in modules if name.startswith("experiments.shared.")}
    assert {name.rpartition(".")[2] for name in shared} == set().union(*SHARED_LAYERS)
    checks = {name for name in modules if name.endswith(".which_python")}  # each folder's "which Python" line
    scripts = set(modules) - shared - checks - {"experiments", "experiments.shared"}  # the scripts and their folders
    assert {"experiments.chapters.ch03_random_go", "experiments.headline.alphazero_go9",
            "experiments.crosschecks.vs_gnugo", "experiments.chapters"} <= scripts
    reached = {name: sorted(resolved_imports(path, name) & scripts) for name, path in modules.items()}
    assert {name: found for name, found in reached.items() if found} == {}
    below = {}
    for depth, layer in enumerate(SHARED_LAYERS):
        for name in layer:
            below[f"experiments.shared.{name}"] = {f"experiments.shared.{lower}"
                                                   for deeper in SHARED_LAYERS[depth + 1:] for lower in deeper}
    upward = {name: sorted(found) for name in shared
              if (found := {m for m in resolved_imports(modules[name], name) if m in shared} - below[name])}
    assert upward == {}
    assert [name for name in shared if any(m == "dlgo.app" or m.startswith("dlgo.app.")
                                           for m in resolved_imports(modules[name], name))] == []


def test_the_check_above_catches_a_script_importing_another(tmp_path):
    """Each way a script can reach another: absolute, relative, and as a sibling when run as a file."""
    scripts = {"experiments.chapters.ch03_random_go", "experiments.chapters"}
    for line in ("from experiments.chapters import ch03_random_go",
                 "from experiments.chapters.ch03_random_go import margin",
                 "from . import ch03_random_go", "from .ch03_random_go import margin", "import ch03_random_go",
                 "from experiments import chapters"):
        path = tmp_path / "ch99_new.py"
        path.write_text(line + "\n")
        assert resolved_imports(path, "experiments.chapters.ch99_new") & scripts, line


def test_the_experiments_start_without_tensorflow():
    """Only training pulls TensorFlow in: a chapter's --help and the classic chapters start at once."""
    code = ("import sys, experiments.shared.chapters, experiments.shared.ladders, experiments.shared.supervised, "
            "experiments.shared.alphazero, experiments.shared.rl, experiments.chapters.ch04b_mcts, "
            "experiments.chapters.ch14b_alphazero_connect4, experiments.headline.alphazero_go9; "
            "print('tensorflow' in sys.modules or 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


def test_the_compiled_modules_really_import_numba():
    """The exception above is only for modules that do load numba."""
    for module in COMPILED_MODULES:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert "from numba" in source or "from dlgo.games.kernels import" in source or \
            "from dlgo.games.go import kernels" in source or "from engines import mcts_kernels" in source, module


def test_the_tensorflow_modules_really_import_tensorflow():
    """The exception above is only for modules that do pull TensorFlow in."""
    for module in TENSORFLOW_MODULES - {"tensorflow", "keras"}:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert "import tensorflow" in source or 'import_module("tensorflow")' in source \
            or "engines.neural.backend import" in source, module


def test_no_import_cycles():
    graph = grimp.build_graph("dlgo", "engines")
    cycles = [(a, b) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
              if graph.chain_exists(importer=b, imported=a)]
    assert cycles == []


def test_the_library_and_the_cli_start_without_tensorflow_the_web_server_or_ray():
    code = ("import sys, dlgo.app.cli, dlgo.arena.tournament, dlgo.data.dataset, engines.mcts, engines.alphazero, "
            "engines.analysis; print(sorted({'tensorflow', 'keras', 'fastapi', 'uvicorn', 'ray', 'numba'} & "
            "set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_optional_modules_really_import_their_extra():
    for module in WEB_MODULES:
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        assert "from fastapi import" in source or "import ray" in source, module


def test_only_the_optional_modules_import_their_extra():
    importers = {".".join(path.relative_to(ROOT).with_suffix("").parts)
                 for package in ("dlgo", "engines") for path in (ROOT / package).rglob("*.py")
                 if {module.split(".")[0] for module in imported_modules(path)} & EXTRAS}
    assert importers <= WEB_MODULES


#: the longest a function of the library may be, in lines (decorators and docstring included)
LONGEST_FUNCTION = 60
#: functions allowed to be longer because they are a table, not steps ("path:name"); none today
TABLES: set[str] = set()


def function_lengths(path: Path, root: Path = ROOT) -> dict[str, int]:
    """Every function and method of ``path`` (named relative to ``root``) with its length in lines."""
    lengths = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lengths[f"{path.relative_to(root)}:{node.name}"] = node.end_lineno - start + 1
    return lengths


@pytest.mark.parametrize("package", ["dlgo", "engines"])
def test_no_long_functions_in_the_library(package):
    """A long function is named steps: nothing in dlgo/ or engines/ over 60 lines but a table."""
    long = {name: n for path in sorted((ROOT / package).rglob("*.py")) for name, n in function_lengths(path).items()
            if n > LONGEST_FUNCTION and name not in TABLES}
    assert long == {}


def test_the_length_check_counts_decorators_and_methods(tmp_path):
    body = "\n".join(f"        x{k} = {k}" for k in range(LONGEST_FUNCTION - 1))
    sample = f"class A:\n    @staticmethod\n    def long():\n{body}\n\n\ndef short():\n    pass\n"
    (tmp_path / "sample.py").write_text(sample)
    assert function_lengths(tmp_path / "sample.py", tmp_path) == {"sample.py:long": LONGEST_FUNCTION + 1,
                                                                  "sample.py:short": 2}


#: the longest module a script folder may hold: past it, a script is two ideas (split it into the
#: script and an ``experiments/shared`` module, or a package of scripts/ modules)
LONGEST_SCRIPT_MODULE = 500


def long_modules(folders: Sequence[Path], limit: int = LONGEST_SCRIPT_MODULE) -> dict[str, int]:
    """Every module under ``folders`` longer than ``limit`` lines, with its length."""
    lengths = {str(path.relative_to(folder.parent)): len(path.read_text().splitlines())
               for folder in folders for path in sorted(folder.rglob("*.py"))}
    return {name: n for name, n in lengths.items() if n > limit}


def test_no_long_modules_in_the_experiments_or_the_scripts():
    """A reader opens one experiment or script and reads it through: none over 500 lines."""
    assert long_modules([ROOT / "experiments", ROOT / "scripts"]) == {}


def test_the_module_length_check_counts_lines(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * (LONGEST_SCRIPT_MODULE + 1))
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * LONGEST_SCRIPT_MODULE)
    assert long_modules([tmp_path / "pkg"]) == {"pkg/long.py": LONGEST_SCRIPT_MODULE + 1}


#: the Elo model's formula written out: 10 ** (difference / 400), or 400 log10(odds)
ELO_FORMULA = re.compile(r"\b10(?:\.0*)?\s*\*\*\s*\(.*/\s*400\b|\b400(?:\.0*)?\s*\*\s*(?:math|np)\s*\.\s*log10")


def elo_formulas(path: Path) -> list[int]:
    """The lines of ``path`` whose code writes the Elo model out (comments and plain strings aside;
    an f-string's expressions are code)."""
    code: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        words = token.type in (tokenize.COMMENT, tokenize.STRING) and not re.match(r"[rRbB]*[fF]", token.string)
        if not words and token.type not in (tokenize.NL, tokenize.NEWLINE):
            code[token.start[0]] = code.get(token.start[0], "") + " " + token.string  # tokens apart
    return [n for n, line in sorted(code.items()) if ELO_FORMULA.search(line)]


def test_the_elo_model_is_written_once_in_the_arena():
    """Every Elo figure comes from dlgo.arena.ratings (expected_score, elo_from_score, fit_ratings):
    no other module of the library, the experiments or the scripts writes the formula again."""
    home = ROOT / "dlgo" / "arena" / "ratings.py"
    sources = [p for folder in ("dlgo", "engines", "experiments", "scripts", "benchmarks")
               for p in sorted((ROOT / folder).rglob("*.py")) if p != home]
    assert {str(p.relative_to(ROOT)): lines for p in sources if (lines := elo_formulas(p))} == {}
    assert elo_formulas(home)  # the check sees the formula where it lives


def test_the_elo_check_reads_code_not_words(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""P = 1 / (1 + 10 ** ((b - a) / 400))"""\n# 400 * math.log10(odds)\n'
                      "share = 1 / (1 + 10 ** (-elo / 400))\nelo = 400.0 * math.log10(s / (1 - s))\n"
                      "text = f'{1 / (1 + 10 ** (-s / 400)):.0%}'\n"
                      "def elo(g):\n    return 400.0 * np.log10(g)\n"
                      "share = 1.0 / (1.0 + 10.0 ** (-elo / 400.0))\n")
    assert elo_formulas(sample) == [3, 4, 5, 7, 8]


#: the weight a clone carries, in MB of tracked files a folder (every student downloads it): what a
#: report keeps, the shipped networks and the resume packs of unfinished runs; a change that needs
#: more says so here, in the same commit
WEIGHT_BUDGET_MB = {"checkpoints": 50.0, "reports": 35.0, "resume": 35.0}
#: the largest single tracked file, in MB (a shipped network at most 10 MB, docs/DESIGN's rule)
LARGEST_FILE_MB = 10.0


def tracked_sizes(root: Path = ROOT) -> dict[str, int]:
    """Every tracked file's size in bytes, by its path from the root."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True).stdout
    return {name: (root / name).stat().st_size for name in listed.split("\0") if name and (root / name).is_file()}


def over_budget(sizes: dict[str, int], budget: dict[str, float], largest: float) -> list[str]:
    """The folders over their budget and the files over ``largest`` MB, each in words."""
    totals: dict[str, int] = {}
    for name, size in sizes.items():
        totals[name.split("/")[0]] = totals.get(name.split("/")[0], 0) + size
    heavy = [f"{folder}/ holds {totals.get(folder, 0) / 1e6:.1f} MB, its budget {mb:g}"
             for folder, mb in budget.items() if totals.get(folder, 0) > mb * 1e6]
    return heavy + [f"{name} is {size / 1e6:.1f} MB, over {largest:g}" for name, size in sizes.items()
                    if size > largest * 1e6]


def test_the_clone_keeps_to_its_weight_budget():
    """The shipped networks, the reports and the resume packs stay within their budgets, no
    file over 10 MB, and every resume pack is one resume/README.md lists, with what it is kept
    for (an unfinished run; a finished run's pack goes once its report is committed)."""
    sizes = tracked_sizes()
    assert over_budget(sizes, WEIGHT_BUDGET_MB, LARGEST_FILE_MB) == []
    packs = {name.split("/")[1] for name in sizes if name.startswith("resume/") and name.count("/") >= 2}
    listed = set(re.findall(r"`([\w.-]+)/", (ROOT / "resume" / "README.md").read_text()))
    assert packs <= listed, f"resume packs no row of resume/README.md names: {sorted(packs - listed)}"


def test_the_weight_check_sees_a_heavy_folder_and_a_heavy_file():
    sizes = {"reports/a/games.csv": 3_000_000, "reports/b/x.png": 1_000, "checkpoints/big.keras": 12_000_000}
    assert over_budget(sizes, {"reports": 2.0, "checkpoints": 20.0}, 10.0) == [
        "reports/ holds 3.0 MB, its budget 2", "checkpoints/big.keras is 12.0 MB, over 10"]
