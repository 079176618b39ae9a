"""Write (or check) the README's paper table from every package's [tool.paper] table.

python scripts/paper_table.py           # rewrite the table between the README's markers
python scripts/paper_table.py --check   # exit 1 when the README's table is stale
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- paper-table:begin -->", "<!-- paper-table:end -->"


def paper_table(root: Path = ROOT) -> str:
    rows = [
        "| package | distribution | paper | arXiv | official code | needs a GPU | quick run |",
        "|---|---|---|---|---|---|---|",
    ]
    for pp in sorted(root.glob("packages/*/pyproject.toml")):
        data = tomllib.loads(pp.read_text())
        paper = data.get("tool", {}).get("paper")
        if not paper:
            continue
        name, distribution = pp.parent.name, data["project"]["name"]
        arxiv = paper.get("arxiv", "")
        code = paper.get("official_code") or "none public"
        rows.append(
            f"| [{name}](packages/{name}) | `{distribution}` | {paper['title']} | "
            f"{f'[{arxiv}](https://arxiv.org/abs/{arxiv})' if arxiv else '-'} | {code} | "
            f"{'yes' if paper.get('needs_gpu') else 'no'} | "
            f"~{paper.get('quick_budget_s', '?')} s |"
        )
    return "\n".join(rows)


def render(readme: str, table: str) -> str:
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"README.md lacks the markers {BEGIN} / {END}")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main(argv: list[str]) -> int:
    path = ROOT / "README.md"
    current = path.read_text()
    wanted = render(current, paper_table())
    if "--check" in argv:
        if wanted != current:
            print("README.md's paper table is stale: run python scripts/paper_table.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
