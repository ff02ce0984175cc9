#!/usr/bin/env python3
"""The analyzer's stages include only the stages below them.

Usage: check_stage_layers.py REPO_ROOT STAGES_FILE

STAGES_FILE is written by analyzer/CMakeLists.txt: one line "stage: lower stages it links" per
stage library. Each stage is the folder analyzer/<stage>/ (subfolders included); the files at the
top of analyzer/ are the stage "run_analysis". The check fails, naming file and line, on:
  - an include of another stage's header that the including stage does not link, directly or
    through the stages it links (that is an upward include, or one that closes a cycle);
  - a cycle in the stage links themselves;
  - a folder under analyzer/ that is no stage (its files would escape the check).
"""
import pathlib
import re
import sys

TOP_STAGE = "run_analysis"
DATA_FOLDERS = {"rules"}  # data compiled into stages, no code
INCLUDE = re.compile(r'^\s*#\s*include\s+"analyzer/([^"]+)"')


def read_stages(path):
    stages = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, deps = line.partition(":")
        stages[name.strip()] = deps.split()
    return stages


def closure(stages):
    """Each stage's lower stages, transitively; raises on a cycle."""
    below = {}
    visiting = []

    def visit(stage):
        if stage in below:
            return below[stage]
        if stage in visiting:
            cycle = visiting[visiting.index(stage):] + [stage]
            raise SystemExit("stage links form a cycle: " + " -> ".join(cycle))
        visiting.append(stage)
        result = set()
        for dep in stages.get(stage, []):
            if dep not in stages:
                raise SystemExit(f"stage {stage} links {dep}, which is no stage")
            result |= {dep} | visit(dep)
        visiting.pop()
        below[stage] = result
        return result

    for stage in stages:
        visit(stage)
    return below


def stage_of(relative):
    """The stage of a path relative to analyzer/ ("model/op_work.h" -> "model")."""
    parts = pathlib.PurePosixPath(relative).parts
    return TOP_STAGE if len(parts) == 1 else parts[0]


def main():
    root = pathlib.Path(sys.argv[1])
    stages = read_stages(sys.argv[2])
    below = closure(stages)
    analyzer = root / "analyzer"
    problems = []
    for folder in sorted(p for p in analyzer.iterdir() if p.is_dir()):
        if folder.name not in stages and folder.name not in DATA_FOLDERS:
            problems.append(f"analyzer/{folder.name}/: a folder with no stage library "
                            "(add it with ampscope_analyzer_stage in its CMakeLists.txt)")
    files = sorted(p for p in analyzer.rglob("*") if p.suffix in (".h", ".cpp"))
    for path in files:
        relative = path.relative_to(analyzer).as_posix()
        stage = stage_of(relative)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            included = match.group(1)
            if not (analyzer / included).exists():
                continue  # generated headers (tensor_core_rules_data.h) live in the build tree
            target = stage_of(included)
            if target == stage or target in below.get(stage, set()):
                continue
            problems.append(f"analyzer/{relative}:{number}: stage {stage} includes analyzer/{included} "
                            f"of stage {target}, which it does not link "
                            f"(it links: {', '.join(sorted(below.get(stage, set()))) or 'no stage'})")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"{len(files)} files in {len(stages)} stages: every include goes down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
